/**
 * A typed model of an elicitation `requestedSchema` (MCP 2025-11-25, form mode: a flat object
 * of primitive properties) and of a tool's `inputSchema` when it is an object of primitives.
 *
 * Used by the VS Code form (one input box / quick pick per field) and by the headless client
 * (which answers every form with {@link defaultAnswer}). No `vscode` import: this is core.
 *
 * - {@link parseForm}: schema → typed fields, or a reason why the form can't express it (the UI
 *   then falls back to a JSON editor).
 * - {@link validateField}: raw text the user typed → typed value, or a readable error (for
 *   input-box validation as the user types).
 * - {@link validateAnswer}: a complete answer → every problem (checked before sending).
 * - {@link defaultAnswer}: every default applied (SEP-1034), and optionally every required
 *   field without a default filled with a valid value.
 */

export { type BooleanField, type EnumField, type EnumOption, type EnumValue, type FieldResult, type FieldValue, type FormContent, type FormField, type FormProblem, type MultiSelectField, type NumberField, type ParsedForm, type ParseOptions, type StringField, type StringFormat, type UnsupportedProperty } from './formTypes.js';
export { parseForm } from './schema.js';
export { describeField, fieldLabel } from './labels.js';
export { checkValue } from './validation.js';
export { formatFieldValue, validateField } from './fieldInput.js';
export { defaultAnswer, type DefaultAnswerOptions, sampleValue, validateAnswer } from './content.js';
