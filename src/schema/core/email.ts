// Email addresses as the service stores them: trimmed, lowercased, at most 254 characters, with a dot
// in the domain.
import { badInput } from "./errors.ts";

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const MAX_LENGTH = 254;

export const isEmail = (email: string) => email.length <= MAX_LENGTH && EMAIL.test(email);

/** The normalised email, or a 400 naming the field. */
export function emailOf(value: unknown, field: string): string {
  const email = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (!isEmail(email)) throw badInput(`${field} must be an email address, got ${JSON.stringify(value)}`);
  return email;
}
