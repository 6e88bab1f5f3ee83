import { ValidationError } from '../errors';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** True when the value looks like an e-mail address. */
export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/** Names of the fields that are missing or blank in a request body. */
export function requireFields(body: object, fields: string[]): string[] {
  const record = body as Record<string, unknown>;
  return fields.filter((field) => isBlank(record[field]));
}

/**
 * Parses a positive integer route parameter.
 * @throws ValidationError when the value is not a positive integer
 */
export function parseId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) {
    throw new ValidationError(`invalid id: ${raw}`);
  }
  return id;
}

/** undefined, null and whitespace-only strings are blank. */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || String(value).trim() === '';
}
