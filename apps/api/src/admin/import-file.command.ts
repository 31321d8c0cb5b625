// `mp-admin import-file`: imports a contacts file from the local disk (help and options here, the
// work in imports/import-file.command.ts).
import { AdminCommand, need, organizationId } from './admin-command';
import { importFileCommand } from '../imports/import-file.command';

export const importFileAdminCommand: AdminCommand = {
  name: 'import-file',
  summary: 'import a CSV or Excel file of contacts from the local disk, with a progress bar',
  description:
    'Uploads the file as the API would, starts the import and follows it with a progress bar on ' +
    'stderr until it ends; the finished import is the output. By default this command also ' +
    'processes the import itself (a running worker may share the work); --via-worker leaves it ' +
    'to the workers. Consent is taken as confirmed.',
  options: {
    org: { type: 'string', value: 'ID', description: 'organization id', required: true, id: true },
    file: { type: 'string', value: 'PATH', description: 'the .csv or .xlsx file', required: true },
    map: {
      type: 'string',
      value: 'MAPPINGS',
      description: 'comma list of "CSV header=field", e.g. "Email=email,First=firstName"',
      required: true,
    },
    list: { type: 'string', value: 'NAME', description: 'add the contacts to this list' },
    tags: { type: 'string', value: 'TAGS', description: 'comma list of tags to add' },
    duplicates: { type: 'string', value: 'skip|update', description: 'default skip' },
    partial: { type: 'boolean', description: 'import the valid rows when some are invalid' },
    'via-worker': { type: 'boolean', description: 'leave the processing to running workers' },
  },
  examples: [
    'mp-admin import-file --org $ORG --file people.csv --map "Email=email,First=firstName" --list Newsletter --partial',
  ],
  async run({ app }, flags) {
    const orgId = await organizationId(app, flags);
    return importFileCommand(app, orgId, flags, (name) => need(flags, name));
  },
};
