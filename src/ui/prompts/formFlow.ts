import * as vscode from 'vscode';
import type { EnumOption, FormContent, FormField, ParsedForm } from '../../core/forms/elicitationForm.js';
import { loadForms, type Forms } from './formsLoader.js';
import { inputStep, pickStep, type StepOptions, type StepResult } from './quickInput.js';

/**
 * How a form ended. `cancel` comes from the token (the request was withdrawn) or the explicit
 * Cancel row; `decline` only from the explicit choice. `hidden`: the form left the screen
 * (Escape, or another quick input such as the command palette took its place): nothing is
 * answered and its {@link FormSession} holds what was typed, to show it again.
 */
export type FormFlowResult =
  | { readonly action: 'accept'; readonly content: FormContent }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' }
  | { readonly action: 'hidden' };

/**
 * Where a form is and what was typed: kept across the form being hidden and reopened, so a form
 * never loses its input. Create it with {@link newFormSession}.
 */
export interface FormSession {
  readonly content: FormContent;
  /** The step on screen when the form was hidden: a field's index, or `fields.length` (review). */
  index: number;
  /** A field being edited from the review step (the form returns to the review after it). */
  editing?: number;
  /** What was in a field's input box, not yet confirmed with Enter. */
  readonly drafts: Record<string, string>;
}

export interface FormFlowOptions {
  /** Always visible: who asks and why, e.g. `"demo" asks: Deployment details`. */
  readonly title: string;
  readonly token: vscode.CancellationToken;
  /** Starting values (defaults are applied on top where absent); ignored with `session`. */
  readonly initial?: FormContent;
  /** Continue a form that was hidden (its answers, step and drafts); updated as the user goes. */
  readonly session?: FormSession;
  readonly acceptLabel?: string;
  /** Offer Decline (elicitation) — a tool form has only Run and Cancel. */
  readonly canDecline?: boolean;
  /**
   * Whose form it is: `request` (a server asks: its fields are the user's answers, Cancel leaves
   * it unanswered) or `tool` (the user's own call: its fields are the tool's arguments, Cancel
   * does not run it). Default `request`.
   */
  readonly purpose?: 'request' | 'tool';
}

const SKIP = Symbol('skip');

/** A fresh session: defaults and `initial` values, at the first step. */
export function newFormSession(form: ParsedForm, initial?: FormContent): FormSession {
  const content: FormContent = {};
  for (const f of form.fields) {
    const v = initial?.[f.key] ?? f.default;
    if (v !== undefined) content[f.key] = Array.isArray(v) ? [...v] : v;
  }
  return { content, index: 0, drafts: {} };
}

/**
 * A quick-input form: one field per step with Back, then a review step (Accept / Edit a field /
 * Decline / Cancel). Values are validated as typed and the whole answer against the schema
 * before it is returned. A form with no field is the review step alone (confirm before it runs).
 */
export async function runFormFlow(form: ParsedForm, options: FormFlowOptions): Promise<FormFlowResult> {
  const forms = await loadForms();
  const session = options.session ?? newFormSession(form, options.initial);
  const { content } = session;
  const total = form.fields.length;
  /** Asks one field; keeps its draft in the session when the form is hidden. */
  const ask = async (idx: number, canGoBack: boolean): Promise<StepResult<unknown>> => {
    const field = form.fields[idx]!;
    const draft = session.drafts[field.key];
    const r = await askField(forms, field, content[field.key], { ...options, step: idx + 1, totalSteps: total + 1, canGoBack }, draft);
    if (r.kind === 'hidden' || r.kind === 'back') {
      if (r.draft !== undefined) session.drafts[field.key] = r.draft;
    } else if (r.kind === 'value') {
      delete session.drafts[field.key];
    }
    return r;
  };
  while (session.index < total) {
    if (options.token.isCancellationRequested) return { action: 'cancel' };
    const i = session.index;
    const r = await ask(i, i > 0);
    if (r.kind === 'cancel') return { action: 'cancel' };
    if (r.kind === 'hidden') return { action: 'hidden' };
    if (r.kind === 'back') {
      session.index = Math.max(0, i - 1);
      continue;
    }
    setValue(content, form.fields[i]!, r.value);
    session.index = i + 1;
  }
  // Review (and fields edited from it).
  for (;;) {
    if (options.token.isCancellationRequested) return { action: 'cancel' };
    if (session.editing !== undefined) {
      const idx = session.editing;
      const e = await ask(idx, false);
      if (e.kind === 'cancel') return { action: 'cancel' };
      if (e.kind === 'hidden') return { action: 'hidden' };
      session.editing = undefined;
      if (e.kind === 'value') setValue(content, form.fields[idx]!, e.value);
      continue;
    }
    const problems = forms.validateAnswer(form, content);
    type Item = vscode.QuickPickItem & { action?: 'accept' | 'decline' | 'cancel'; field?: FormField };
    const items: Item[] = [];
    if (problems.length === 0) {
      items.push({ label: `$(check) ${options.acceptLabel ?? vscode.l10n.t('Accept')}`, action: 'accept', alwaysShow: true });
    } else {
      items.push({ label: `$(warning) ${vscode.l10n.t('Fix before sending')}`, description: problems.map((p) => p.message).join('; '), kind: vscode.QuickPickItemKind.Separator });
    }
    const tool = options.purpose === 'tool';
    // The heading of the fields says what they are and that picking one changes it.
    if (total > 0) items.push({ label: tool ? vscode.l10n.t('Arguments: pick one to change it') : vscode.l10n.t('Your answers: pick one to change it'), kind: vscode.QuickPickItemKind.Separator });
    for (const f of form.fields) {
      const v = content[f.key];
      const problem = problems.find((p) => p.key === f.key);
      items.push({
        label: `$(edit) ${forms.fieldLabel(f)}`,
        description: v === undefined ? (f.required ? vscode.l10n.t('(required, empty)') : vscode.l10n.t('(skipped)')) : displayValue(forms, f, v),
        detail: problem ? `$(warning) ${problem.message}` : undefined,
        field: f,
      });
    }
    items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
    if (options.canDecline !== false) items.push({ label: `$(close) ${vscode.l10n.t('Decline')}`, description: vscode.l10n.t('tell the server you will not answer'), action: 'decline' });
    items.push({ label: `$(circle-slash) ${vscode.l10n.t('Cancel')}`, description: tool ? vscode.l10n.t('do not run the tool') : vscode.l10n.t('dismiss without answering'), action: 'cancel' });
    const r = await pickStep<Item>(items, {
      title: options.title,
      placeholder: problems.length
        ? vscode.l10n.t('{0} problem(s): {1}', problems.length, problems[0]!.message)
        : total > 0
          ? vscode.l10n.t('Review: {0}, or pick a field to edit it', options.acceptLabel ?? vscode.l10n.t('Accept'))
          : vscode.l10n.t('No arguments: {0}?', options.acceptLabel ?? vscode.l10n.t('Accept')),
      token: options.token,
      step: total + 1,
      totalSteps: total + 1,
      canGoBack: total > 0,
    });
    if (r.kind === 'cancel') return { action: 'cancel' };
    if (r.kind === 'hidden') return { action: 'hidden' };
    if (r.kind === 'back') {
      session.editing = total - 1;
      continue;
    }
    const picked = r.value[0]!;
    if (picked.action === 'accept') return { action: 'accept', content: { ...content } };
    if (picked.action === 'decline') return { action: 'decline' };
    if (picked.action === 'cancel') return { action: 'cancel' };
    if (picked.field) session.editing = form.fields.indexOf(picked.field);
  }
}

function setValue(content: FormContent, field: FormField, value: unknown): void {
  if (value === SKIP || value === undefined) delete content[field.key];
  else content[field.key] = value;
}

function displayValue(forms: Forms, field: FormField, v: unknown): string {
  if (field.kind === 'enum') return field.options.find((o) => o.value === v)?.title ?? String(v);
  if (field.kind === 'multiselect' && Array.isArray(v)) return v.map((x) => field.options.find((o) => o.value === x)?.title ?? String(x)).join(', ') || vscode.l10n.t('(none)');
  if (field.kind === 'boolean') return v ? vscode.l10n.t('Yes') : vscode.l10n.t('No');
  return forms.formatFieldValue(field, v);
}

async function askField(forms: Forms, field: FormField, current: unknown, o: StepOptions, draft?: string): Promise<StepResult<unknown>> {
  const { checkValue, describeField, fieldLabel, formatFieldValue, validateField } = forms;
  // Input boxes: "Homepage: URL, optional" (describeField ends with required/optional).
  // Quick picks show the options as rows, so their placeholder (one line, cut off when long)
  // carries only the name, the description and, for multi-selects, how to toggle.
  const label = field.required ? fieldLabel(field) : vscode.l10n.t('{0} (optional)', fieldLabel(field));
  const pickHint = [label, field.description].filter(Boolean).join(' — ');
  switch (field.kind) {
    case 'string':
    case 'number': {
      const r = await inputStep({
        ...o,
        prompt: `${fieldLabel(field)}: ${[field.description, describeField(field)].filter(Boolean).join(' — ')}`,
        placeholder: field.required ? undefined : vscode.l10n.t('Leave empty to skip'),
        value: draft ?? (current === undefined ? '' : formatFieldValue(field, current)),
        validateInitial: true,
        validate: (v) => {
          const res = validateField(field, v);
          return res.ok ? undefined : res.error;
        },
      });
      if (r.kind !== 'value') return r;
      const res = validateField(field, r.value);
      return { kind: 'value', value: res.ok ? (res.value ?? SKIP) : SKIP };
    }
    case 'boolean': {
      type Item = vscode.QuickPickItem & { value: boolean | typeof SKIP };
      const items: Item[] = [
        { label: vscode.l10n.t('Yes'), value: true, description: field.default === true ? vscode.l10n.t('default') : undefined },
        { label: vscode.l10n.t('No'), value: false, description: field.default === false ? vscode.l10n.t('default') : undefined },
      ];
      if (!field.required) items.push({ label: `$(debug-step-over) ${vscode.l10n.t('Skip')}`, value: SKIP });
      const active = items.find((it) => it.value === (current ?? field.default));
      const r = await pickStep(items, { ...o, placeholder: pickHint, active });
      return r.kind === 'value' ? { kind: 'value', value: r.value[0]!.value } : r;
    }
    case 'enum': {
      type Item = vscode.QuickPickItem & { value: EnumOption['value'] | typeof SKIP };
      const items: Item[] = field.options.map((opt) => ({
        label: opt.title,
        description: [opt.title !== String(opt.value) ? String(opt.value) : undefined, opt.value === field.default ? vscode.l10n.t('default') : undefined].filter(Boolean).join(' · ') || undefined,
        value: opt.value,
      }));
      if (!field.required) items.push({ label: `$(debug-step-over) ${vscode.l10n.t('Skip')}`, value: SKIP });
      const active = items.find((it) => it.value === (current ?? field.default));
      const r = await pickStep(items, { ...o, placeholder: pickHint, active });
      return r.kind === 'value' ? { kind: 'value', value: r.value[0]!.value } : r;
    }
    case 'multiselect': {
      type Item = vscode.QuickPickItem & { value: EnumOption['value'] };
      const chosen = Array.isArray(current) ? current : (field.default ?? []);
      const items: Item[] = field.options.map((opt) => ({
        label: opt.title,
        description: opt.title !== String(opt.value) ? String(opt.value) : undefined,
        value: opt.value,
        picked: chosen.includes(opt.value),
      }));
      const r = await pickStep(items, {
        ...o,
        // Space toggles only once a row has the focus (in the filter box it types a space).
        placeholder: `${pickHint} — ${vscode.l10n.t('{0} (↓ then Space toggles)', chooseText(field))}`,
        many: true,
        validate: (sel) => checkValue(field, sel.map((s) => s.value)),
      });
      if (r.kind !== 'value') return r;
      const values = r.value.map((s) => s.value);
      return { kind: 'value', value: values.length === 0 && !field.required ? SKIP : values };
    }
  }
}

/** "choose 1 to 3", "choose at least 1", "choose any". */
function chooseText(field: Extract<FormField, { kind: 'multiselect' }>): string {
  const { minItems: lo, maxItems: hi } = field;
  if (lo !== undefined && hi !== undefined) return lo === hi ? vscode.l10n.t('choose {0}', lo) : vscode.l10n.t('choose {0} to {1}', lo, hi);
  if (lo !== undefined && lo > 0) return vscode.l10n.t('choose at least {0}', lo);
  if (hi !== undefined) return vscode.l10n.t('choose at most {0}', hi);
  return vscode.l10n.t('choose any');
}
