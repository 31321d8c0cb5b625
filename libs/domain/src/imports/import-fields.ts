// The contact fields a CSV column maps to (§7), mapping checks and suggestions, and row validation.
import {
  checkContactRule,
  checkPhone,
  checkTagNames,
  ContactRuleName,
  ParsedPhone,
} from '../contacts/contact.rules';
import type { ContactStatus } from '../contacts/contact.entity';
import { FieldError, ValidationFailedError } from '../errors/domain-errors';
import type { FieldMapping } from './contact-import.entity';

export const SERVICE_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'phoneNumber',
  'whatsappNumber',
  'telegramUsername',
  'timezone',
  'language',
  'status',
  'notes',
  'tags',
  'ignore',
] as const;
export type ServiceField = (typeof SERVICE_FIELDS)[number];

export const CUSTOM_FIELD_PREFIX = 'customFields.';
const CUSTOM_KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** Fields that may be mapped from several columns (their cells are combined). */
const REPEATABLE = new Set(['ignore', 'tags']);

/** A mapping compiled against the file's header: column index → target. */
export interface CompiledMapping {
  columns: { index: number; field: ServiceField | 'custom'; key?: string }[];
  headerCount: number;
}

/**
 * Checks a start request's mappings against the file's headers; every problem is a 422 naming
 * its path (`fieldMappings.2.serviceField`).
 */
export function compileMappings(mappings: FieldMapping[], headers: string[]): CompiledMapping {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  const columns: CompiledMapping['columns'] = [];
  mappings.forEach((m, i) => {
    const path = `fieldMappings.${i}`;
    const index = headers.indexOf(m.csvHeader);
    if (index < 0) {
      errors.push({
        field: `${path}.csvHeader`,
        rule: 'enum',
        message: `${path}.csvHeader "${m.csvHeader}" is not a column of the file`,
      });
    }
    let field: ServiceField | 'custom' | undefined;
    let key: string | undefined;
    if (m.serviceField.startsWith(CUSTOM_FIELD_PREFIX)) {
      key = m.serviceField.slice(CUSTOM_FIELD_PREFIX.length);
      if (CUSTOM_KEY.test(key)) field = 'custom';
    } else if ((SERVICE_FIELDS as readonly string[]).includes(m.serviceField)) {
      field = m.serviceField as ServiceField;
    }
    if (!field) {
      errors.push({
        field: `${path}.serviceField`,
        rule: 'enum',
        message: `${path}.serviceField must be one of ${SERVICE_FIELDS.join(', ')} or customFields.<key> (letters, digits, _ and -, up to 64)`,
      });
      return;
    }
    if (!REPEATABLE.has(m.serviceField)) {
      const first = seen.get(m.serviceField);
      if (first !== undefined) {
        errors.push({
          field: `${path}.serviceField`,
          rule: 'unique',
          message: `${path}.serviceField ${m.serviceField} is already mapped by fieldMappings.${first}`,
        });
        return;
      }
      seen.set(m.serviceField, i);
    }
    const mappedTwice = columns.find((c) => c.index === index);
    if (index >= 0 && mappedTwice) {
      errors.push({
        field: `${path}.csvHeader`,
        rule: 'unique',
        message: `${path}.csvHeader "${m.csvHeader}" is mapped more than once`,
      });
      return;
    }
    if (index >= 0 && field !== 'ignore') columns.push({ index, field, key });
  });
  if (!errors.length && !columns.length) {
    errors.push({
      field: 'fieldMappings',
      rule: 'required',
      message: 'fieldMappings must map at least one column to a contact field',
    });
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return { columns, headerCount: headers.length };
}

const SUGGESTIONS: [RegExp, ServiceField][] = [
  [/^(e?mail|emailaddress|mailaddress|courriel)$/, 'email'],
  [/^(first|firstname|givenname|forename|prenom)$/, 'firstName'],
  [/^(last|lastname|surname|familyname|nom)$/, 'lastName'],
  [/^(phone|phonenumber|mobile|mobilenumber|cell|cellphone|sms|tel|telephone)$/, 'phoneNumber'],
  [/^(whatsapp|whatsappnumber)$/, 'whatsappNumber'],
  [/^(telegram|telegramusername|telegramhandle)$/, 'telegramUsername'],
  [/^(timezone|tz|zone)$/, 'timezone'],
  [/^(language|lang|locale)$/, 'language'],
  [/^(status|contactstatus)$/, 'status'],
  [/^(notes?|comments?)$/, 'notes'],
  [/^(tags?|labels?)$/, 'tags'],
];

/** customFields key from a header: camelCase of its letters and digits. */
function customKey(header: string): string | null {
  const words = header
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  if (!words.length) return null;
  const key = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join('')
    .slice(0, 64);
  return key;
}

/** The preview's guess: known names to contact fields, anything else to a custom field. */
export function suggestMappings(headers: string[]): FieldMapping[] {
  const used = new Set<string>();
  return headers.map((csvHeader) => {
    const norm = csvHeader.toLowerCase().replace(/[^a-z0-9]/g, '');
    const hit = SUGGESTIONS.find(([re]) => re.test(norm))?.[1];
    let serviceField: string = 'ignore';
    if (hit && !used.has(hit)) serviceField = hit;
    else if (!hit) {
      const key = customKey(csvHeader);
      if (key) serviceField = CUSTOM_FIELD_PREFIX + key;
    }
    if (serviceField !== 'ignore' && used.has(serviceField)) serviceField = 'ignore';
    used.add(serviceField);
    return { csvHeader, serviceField };
  });
}

/** A row's contact values after validation; empty cells are null. */
export interface ImportRowValues {
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  timezone: string | null;
  language: string | null;
  status: ContactStatus | null;
  notes: string | null;
  phone: ParsedPhone | null;
  whatsapp: ParsedPhone | null;
  telegramUsername: string | null;
  tags: string[];
  customFields: Record<string, string> | null;
}

export type RowCheck = { ok: true; values: ImportRowValues } | { ok: false; error: string };

/** The name a row error gives a mapped column: its contact field, as the API names it. */
function fieldLabel(col: CompiledMapping['columns'][number]): string {
  return col.field === 'custom' ? `${CUSTOM_FIELD_PREFIX}${col.key}` : col.field;
}

/**
 * Validates one record with the contact rules (the same checks as the contacts API). Errors are
 * joined into one readable message naming each field. A mapped cell holding bytes that are not
 * text (a NUL, which PostgreSQL cannot store in text; a sequence that is not UTF-8, listed in
 * `undecodable`) makes the row invalid; unmapped cells are never stored, so they are not checked.
 */
export function checkRow(
  record: string[],
  mapping: CompiledMapping,
  undecodable?: readonly number[],
): RowCheck {
  if (record.length !== mapping.headerCount) {
    return {
      ok: false,
      error: `row has ${record.length} columns, the header has ${mapping.headerCount}`,
    };
  }
  const v: ImportRowValues = {
    email: null,
    firstName: null,
    lastName: null,
    timezone: null,
    language: null,
    status: null,
    notes: null,
    phone: null,
    whatsapp: null,
    telegramUsername: null,
    tags: [],
    customFields: null,
  };
  let problems: string[] | null = null;
  let filled = false;
  for (const col of mapping.columns) {
    const cell = record[col.index];
    if (cell === undefined) continue;
    const notText = undecodable?.includes(col.index)
      ? 'is not valid UTF-8 text'
      : cell.includes('\0')
        ? 'contains a NUL byte'
        : null;
    if (notText) {
      filled = true;
      (problems ??= []).push(`${fieldLabel(col)} ${notText}`);
      continue;
    }
    if (cell.trim() === '') continue;
    filled = true;
    const problem = checkCell(v, col, cell);
    if (problem) (problems ??= []).push(problem);
  }
  if (!filled) return { ok: false, error: 'row has no value in any mapped column' };
  if (v.telegramUsername && !v.phone && !v.whatsapp && !problems) {
    problems = [
      'telegramUsername needs a phoneNumber or whatsappNumber in the same row (a Telegram account is stored with its phone number)',
    ];
  }
  if (problems) return { ok: false, error: problems.join('; ') };
  return { ok: true, values: v };
}

/** Text fields checked by one contact rule, trimmed: the field's rule. */
const TEXT_FIELDS: Partial<Record<ServiceField, ContactRuleName>> = {
  email: 'email',
  firstName: 'name',
  lastName: 'name',
  telegramUsername: 'telegramUsername',
  timezone: 'timezone',
  language: 'language',
};

/** Checks one non-empty cell by the contact rules and sets its value; answers the problem. */
function checkCell(
  v: ImportRowValues,
  col: CompiledMapping['columns'][number],
  cell: string,
): string | null {
  const rule = col.field === 'custom' ? undefined : TEXT_FIELDS[col.field];
  if (rule) {
    const value = cell.trim();
    const problem = checkContactRule(rule, value, col.field);
    if (!problem) (v as unknown as Record<string, string>)[col.field] = value;
    return problem;
  }
  switch (col.field) {
    case 'phoneNumber':
    case 'whatsappNumber': {
      const r = checkPhone(cell, col.field);
      if (!r.ok) return r.message;
      if (col.field === 'phoneNumber') v.phone = r.value;
      else v.whatsapp = r.value;
      return null;
    }
    case 'status': {
      // Any letter case ("Active").
      const status = cell.trim().toLowerCase();
      const problem = checkContactRule('status', status, 'status');
      if (!problem) v.status = status as ContactStatus;
      return problem;
    }
    case 'notes': {
      const problem = checkContactRule('notes', cell, 'notes');
      if (!problem) v.notes = cell;
      return problem;
    }
    case 'tags': {
      const tags = [...v.tags, ...cell.split(';')].map((n) => n.trim()).filter(Boolean);
      const problem = checkTagNames(tags);
      if (!problem) v.tags = tags;
      return problem;
    }
    case 'custom':
      (v.customFields ??= {})[col.key!] = cell.trim();
      return null;
    default:
      return null;
  }
}
