// How an import run ends other than by finishing: one class each, told apart by type.

/** The run ends without changing the import: cancelled, deleted, or taken over by another worker. */
export class ImportStopped extends Error {}

/** This process is shutting down: the run stops at a batch boundary and hands the import back. */
export class WorkerStopping extends Error {}

/** The import cannot succeed: it ends `failed` with this message as its reason. */
export class ImportFailure extends Error {}

/** The file itself is broken (the CSV parser's error, made readable): the import fails. */
export class CsvBroken extends Error {}

/** The reason an import fails when its list is deleted while it runs. */
export const LIST_DELETED = 'The contact list of this import was deleted while it ran';
