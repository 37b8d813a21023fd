/**
 * The forms (src/core/forms: schema → fields → validation, RE2JS for a server's `pattern`) are
 * loaded when the first form is shown, not at activation: esbuild.mjs builds them as a bundle of
 * their own (dist/forms.js) that this `import()` requires then. Types are imported as usual.
 */
export type Forms = typeof import('../../core/forms/elicitationForm.js');

let loading: Promise<Forms> | undefined;

/** The forms module, loaded once; a failed load is tried again at the next form. */
export function loadForms(): Promise<Forms> {
  loading ??= import('../../core/forms/elicitationForm.js').catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}
