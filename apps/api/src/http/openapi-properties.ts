// OpenAPI property shapes the swagger plugin cannot infer from a response class's types.

export const UUID = { format: 'uuid' } as const;
export const UUID_OR_NULL = { type: String, format: 'uuid', nullable: true } as const;
/** An ISO 8601 instant. */
export const INSTANT = { type: String, format: 'date-time' } as const;
export const INSTANT_OR_NULL = { type: String, format: 'date-time', nullable: true } as const;
export const STRING_OR_NULL = { type: String, nullable: true } as const;
/** A JSON object of the caller's own keys. */
export const FREE_OBJECT = { type: 'object', additionalProperties: true } as const;
export const FREE_OBJECT_OR_NULL = { ...FREE_OBJECT, nullable: true } as const;
