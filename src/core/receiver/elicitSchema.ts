/**
 * The SDK's `elicitation/create` request schema, with the same verdict and the same parsed request,
 * at the cost of the one field type each form field can be.
 *
 * A form field's schema is the SDK's `PrimitiveSchemaDefinitionSchema`: a union tried in order —
 * the five enum shapes (three unions of their own), then boolean, string, number — whose first
 * success is the field as parsed (each shape is an object schema that drops the keys it does not
 * know, so which shape takes a field decides what is kept of it). A plain `{ type: "string" }` field
 * first fails the five enum shapes, and each failed inner union finalizes the messages of all its
 * issues before the outer union goes on to the string shape. That was most of a question's check
 * (client side alone, `node --no-opt`: ≈ 25 µs of an `elicitation/create` with one text field; bench:
 * rev2026 input_required host CPU per call).
 *
 * Here a field's own words pick the one shape that can take it, when there is one:
 * - `type: "boolean"`: only the boolean shape (every enum shape needs `"string"` or `"array"`);
 * - `type: "number"` or `"integer"`: only the number shape;
 * - `type: "string"` with neither `enum` nor `oneOf`: only the string shape (the three string enum
 *   shapes each need one of them).
 * That shape parses the field; since no shape before it in the union can take it, its success is the
 * union's and its output the union's output, and its failure the union's failure. Any other field
 * (an enum, an array, a field of no known type) goes through the SDK's union as it is. A request
 * this schema refuses is parsed again with the SDK's own schema, so a refusal is the SDK's error,
 * word for word. `test/unit/receiver/elicitSchema.test.ts` holds it to the SDK's verdicts and output.
 */
import {
  BooleanSchemaSchema,
  ElicitRequestFormParamsSchema,
  ElicitRequestSchema,
  ElicitRequestURLParamsSchema,
  NumberSchemaSchema,
  PrimitiveSchemaDefinitionSchema,
  StringSchemaSchema,
} from '@modelcontextprotocol/core';
import { z } from 'zod';
import type { ParamIssues } from '../base/paramIssues.js';

type FieldSchema = { safeParse(value: unknown): { success: true; data: unknown } | { success: false } };

/** The one field shape `field` can meet, or undefined when more than one can (or it names no known type). */
function onlyShapeFor(field: unknown): FieldSchema | undefined {
  if (typeof field !== 'object' || field === null) return undefined;
  const f = field as { type?: unknown; enum?: unknown; oneOf?: unknown };
  switch (f.type) {
    case 'boolean':
      return BooleanSchemaSchema;
    case 'number':
    case 'integer':
      return NumberSchemaSchema;
    case 'string':
      return f.enum === undefined && f.oneOf === undefined ? StringSchemaSchema : undefined;
    default:
      return undefined;
  }
}

/** A form field: parsed by the one shape that can take it, else by the SDK's union. */
const FormField = z.unknown().transform((field, ctx) => {
  const parsed = (onlyShapeFor(field) ?? PrimitiveSchemaDefinitionSchema).safeParse(field);
  if (parsed.success) return parsed.data;
  // The request is parsed again with the SDK's schema for its error (see elicitRequestSchema).
  ctx.addIssue({ code: 'custom', message: 'not a form field' });
  return z.NEVER;
});

const FormParams = ElicitRequestFormParamsSchema.extend({
  requestedSchema: ElicitRequestFormParamsSchema.shape.requestedSchema.extend({ properties: z.record(z.string(), FormField) }),
});
const ElicitRequestWithFields = ElicitRequestSchema.extend({ params: z.union([FormParams, ElicitRequestURLParamsSchema]) });

/** The SDK's `ElicitRequestSchema`, checked field by field as above; a refusal is the SDK's own. */
export const elicitRequestSchema = {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: ParamIssues } {
    const parsed = ElicitRequestWithFields.safeParse(value);
    if (parsed.success) return { success: true, data: parsed.data };
    return ElicitRequestSchema.safeParse(value) as { success: true; data: unknown } | { success: false; error: ParamIssues };
  },
};
