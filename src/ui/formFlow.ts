import * as vscode from 'vscode';
import {
  checkValue,
  describeField,
  fieldLabel,
  formatFieldValue,
  validateAnswer,
  validateField,
  type EnumOption,
  type FormContent,
  type FormField,
  type ParsedForm,
} from '../core/forms/elicitationForm.js';
import { inputStep, pickStep, type StepOptions, type StepResult } from './quickInput.js';

/** How a form ended. Escape anywhere is `cancel`; `decline` is only the explicit choice. */
export type FormFlowResult = { readonly action: 'accept'; readonly content: FormContent } | { readonly action: 'decline' } | { readonly action: 'cancel' };

export interface FormFlowOptions {
  /** Always visible: who asks and why, e.g. `"demo" asks: Deployment details`. */
  readonly title: string;
  readonly token: vscode.CancellationToken;
  /** Starting values (defaults are applied on top where absent). */
  readonly initial?: FormContent;
  readonly acceptLabel?: string;
  /** Offer Decline (elicitation) — a tool form has only Run and Cancel. */
  readonly canDecline?: boolean;
}

const SKIP = Symbol('skip');

/**
 * A quick-input form: one field per step with Back, then a review step (Accept / Edit a field /
 * Decline / Cancel). Values are validated as typed and the whole answer against the schema
 * before it is returned.
 */
export async function runFormFlow(form: ParsedForm, options: FormFlowOptions): Promise<FormFlowResult> {
  const content: FormContent = {};
  for (const f of form.fields) {
    const v = options.initial?.[f.key] ?? f.default;
    if (v !== undefined) content[f.key] = Array.isArray(v) ? [...v] : v;
  }
  const total = form.fields.length;
  let i = 0;
  while (i < total) {
    if (options.token.isCancellationRequested) return { action: 'cancel' };
    const field = form.fields[i]!;
    const r = await askField(field, content[field.key], { ...options, step: i + 1, totalSteps: total + 1, canGoBack: i > 0 });
    if (r.kind === 'cancel') return { action: 'cancel' };
    if (r.kind === 'back') {
      i = Math.max(0, i - 1);
      continue;
    }
    setValue(content, field, r.value);
    i++;
  }
  // Review.
  for (;;) {
    if (options.token.isCancellationRequested) return { action: 'cancel' };
    const problems = validateAnswer(form, content);
    type Item = vscode.QuickPickItem & { action?: 'accept' | 'decline' | 'cancel'; field?: FormField };
    const items: Item[] = [];
    if (problems.length === 0) {
      items.push({ label: `$(check) ${options.acceptLabel ?? 'Accept'}`, action: 'accept', alwaysShow: true });
    } else {
      items.push({ label: '$(warning) Fix before sending', description: problems.map((p) => p.message).join('; '), kind: vscode.QuickPickItemKind.Separator });
    }
    items.push({ label: 'Answers', kind: vscode.QuickPickItemKind.Separator });
    for (const f of form.fields) {
      const v = content[f.key];
      const problem = problems.find((p) => p.key === f.key);
      items.push({
        label: `$(edit) ${fieldLabel(f)}`,
        description: v === undefined ? (f.required ? '(required, empty)' : '(skipped)') : displayValue(f, v),
        detail: problem ? `$(warning) ${problem.message}` : undefined,
        field: f,
      });
    }
    items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
    if (options.canDecline !== false) items.push({ label: '$(close) Decline', description: 'tell the server you will not answer', action: 'decline' });
    items.push({ label: '$(circle-slash) Cancel', description: 'dismiss without answering', action: 'cancel' });
    const r = await pickStep<Item>(items, {
      title: options.title,
      placeholder: problems.length ? `${problems.length} problem(s): ${problems[0]!.message}` : `Review: ${options.acceptLabel ?? 'Accept'}, or pick a field to edit it`,
      token: options.token,
      step: total + 1,
      totalSteps: total + 1,
      canGoBack: total > 0,
    });
    if (r.kind === 'cancel') return { action: 'cancel' };
    if (r.kind === 'back') {
      const last = form.fields[total - 1]!;
      const e = await askField(last, content[last.key], { ...options, step: total, totalSteps: total + 1, canGoBack: false });
      if (e.kind === 'value') setValue(content, last, e.value);
      continue;
    }
    const picked = r.value[0]!;
    if (picked.action === 'accept') return { action: 'accept', content: { ...content } };
    if (picked.action === 'decline') return { action: 'decline' };
    if (picked.action === 'cancel') return { action: 'cancel' };
    if (picked.field) {
      const idx = form.fields.indexOf(picked.field);
      const e = await askField(picked.field, content[picked.field.key], { ...options, step: idx + 1, totalSteps: total + 1, canGoBack: false });
      if (e.kind === 'value') setValue(content, picked.field, e.value);
    }
  }
}

function setValue(content: FormContent, field: FormField, value: unknown): void {
  if (value === SKIP || value === undefined) delete content[field.key];
  else content[field.key] = value;
}

function displayValue(field: FormField, v: unknown): string {
  if (field.kind === 'enum') return field.options.find((o) => o.value === v)?.title ?? String(v);
  if (field.kind === 'multiselect' && Array.isArray(v)) return v.map((x) => field.options.find((o) => o.value === x)?.title ?? String(x)).join(', ') || '(none)';
  if (field.kind === 'boolean') return v ? 'Yes' : 'No';
  return formatFieldValue(field, v);
}

async function askField(field: FormField, current: unknown, o: StepOptions): Promise<StepResult<unknown>> {
  // Input boxes: "Homepage: URL, optional" (describeField ends with required/optional).
  // Quick picks show the options as rows, so their placeholder (one line, cut off when long)
  // carries only the name, the description and, for multi-selects, how to toggle.
  const label = `${fieldLabel(field)}${field.required ? '' : ' (optional)'}`;
  const pickHint = [label, field.description].filter(Boolean).join(' — ');
  switch (field.kind) {
    case 'string':
    case 'number': {
      const r = await inputStep({
        ...o,
        prompt: `${fieldLabel(field)}: ${[field.description, describeField(field)].filter(Boolean).join(' — ')}`,
        placeholder: field.required ? undefined : 'Leave empty to skip',
        value: current === undefined ? '' : formatFieldValue(field, current),
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
        { label: 'Yes', value: true, description: field.default === true ? 'default' : undefined },
        { label: 'No', value: false, description: field.default === false ? 'default' : undefined },
      ];
      if (!field.required) items.push({ label: '$(debug-step-over) Skip', value: SKIP });
      const active = items.find((it) => it.value === (current ?? field.default));
      const r = await pickStep(items, { ...o, placeholder: pickHint, active });
      return r.kind === 'value' ? { kind: 'value', value: r.value[0]!.value } : r;
    }
    case 'enum': {
      type Item = vscode.QuickPickItem & { value: EnumOption['value'] | typeof SKIP };
      const items: Item[] = field.options.map((opt) => ({
        label: opt.title,
        description: [opt.title !== String(opt.value) ? String(opt.value) : undefined, opt.value === field.default ? 'default' : undefined].filter(Boolean).join(' · ') || undefined,
        value: opt.value,
      }));
      if (!field.required) items.push({ label: '$(debug-step-over) Skip', value: SKIP });
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
        placeholder: `${pickHint} — ${chooseText(field)} (↓ then Space toggles)`,
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
  if (lo !== undefined && hi !== undefined) return lo === hi ? `choose ${lo}` : `choose ${lo} to ${hi}`;
  if (lo !== undefined && lo > 0) return `choose at least ${lo}`;
  if (hi !== undefined) return `choose at most ${hi}`;
  return 'choose any';
}
