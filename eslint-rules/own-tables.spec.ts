// The project's ESLint configuration keeps each area to its own tables: a folder of
// libs/domain/src may import another folder's services but not its repositories or stores, and
// the apps import no repository at all.
import { projectLint } from './project-lint';

/** The files among `files` on which ESLint reports no-restricted-imports, with the project config. */
function restricted(files: Record<string, string>): string[] {
  const found = projectLint(files, 'no-restricted-imports');
  return Object.keys(found).filter((file) => found[file].length > 0);
}

const importing = (from: string) => `import { Thing } from '${from}';\nexport const x = Thing;\n`;

describe('one owner per table (eslint no-restricted-imports)', () => {
  it("refuses another area's repository or store and allows its service and one's own", () => {
    const found = restricted({
      'libs/domain/src/campaigns/probe-a.ts': importing('../contacts/contacts.repository'),
      'libs/domain/src/unsubscribe/probe-b.ts': importing(
        '../messaging/engagement/engagement.store',
      ),
      'libs/domain/src/channels/providers/probe-c.ts': importing(
        '../../webhooks/webhook-queue.repository',
      ),
      'libs/domain/src/campaigns/probe-d.ts': importing('../contacts/contacts.service'),
      'libs/domain/src/campaigns/probe-e.ts': importing('./campaign.repository'),
      'libs/domain/src/messaging/engagement/probe-f.ts': importing('../message.repository'),
      'apps/api/src/contacts/probe-g.ts': importing('@app/domain/contacts/contacts.repository'),
      'apps/api/src/contacts/probe-h.ts': importing('@app/domain'),
    });
    expect(found.sort()).toEqual([
      'apps/api/src/contacts/probe-g.ts',
      'libs/domain/src/campaigns/probe-a.ts',
      'libs/domain/src/channels/providers/probe-c.ts',
      'libs/domain/src/unsubscribe/probe-b.ts',
    ]);
  });
});
