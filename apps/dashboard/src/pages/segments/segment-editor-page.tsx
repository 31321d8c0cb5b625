// Create or edit a segment: name, description, and for a dynamic one the rule builder with a live
// count; a saved segment also lists its members.
import {
  Alert,
  Button,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, dataOf, pageOf, unwrap } from '../../api/client';
import type { Segment, SegmentGroup } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { ErrorAlert, Loading } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { applyApiErrors } from '../../lib/form-errors';
import { runChange } from '../../lib/mutate';
import { optionsOf } from '../../lib/options';
import { newCondition } from './rule-fields';
import { RuleBuilder } from './rule-builder';
import { SegmentMembers } from './segment-members';
import { SegmentPreviewPanel } from './segment-preview';

/** Each type of segment, in the order the type switch offers them. */
const TYPE_LABELS: Record<Segment['type'], string> = {
  dynamic: 'Dynamic (rules)',
  static: 'Static (hand-picked)',
};

const EMPTY_RULES: SegmentGroup = { operator: 'and', conditions: [newCondition()] };

export function SegmentEditorPage() {
  const { id } = useParams();
  const segment = useOrgQuery(
    ['segment', id],
    () => dataOf(api.GET('/api/v1/user/contact-segments/{id}', { params: { path: { id: id! } } })),
    { enabled: Boolean(id) },
  );
  if (id && segment.isLoading) return <Loading />;
  if (id && segment.error) return <ErrorAlert error={segment.error} />;
  // Keyed by segment: the form starts from the loaded segment and is the user's from then on.
  return <SegmentForm key={id ?? 'new'} id={id} loaded={segment.data} />;
}

function SegmentForm({ id, loaded }: { id?: string; loaded?: Segment }) {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [rules, setRules] = useState<SegmentGroup>(loaded?.rules ?? EMPTY_RULES);
  const form = useForm({
    initialValues: {
      name: loaded?.name ?? '',
      description: loaded?.description ?? '',
      type: loaded?.type ?? ('dynamic' as Segment['type']),
    },
  });
  const lists = useOrgQuery(['lists', 'picker'], () =>
    pageOf(api.GET('/api/v1/user/contact-lists', { params: { query: { limit: 100 } } })),
  );
  const listOptions = (lists.data?.data ?? []).map((l) => ({ value: l.id, label: l.name }));

  const dynamic = form.values.type === 'dynamic';

  const save = form.onSubmit(async (v) => {
    setError(null);
    const body = { name: v.name, description: v.description || null };
    try {
      const saved = id
        ? await dataOf(
            api.PATCH('/api/v1/user/contact-segments/{id}', {
              params: { path: { id } },
              body: dynamic ? { ...body, rules } : body,
            }),
          )
        : await dataOf(
            api.POST('/api/v1/user/contact-segments', {
              body: { ...body, type: v.type, ...(dynamic ? { rules } : {}) },
            }),
          );
      await queries.invalidateQueries();
      notifications.show({ color: 'green', message: `Segment ${saved.name} saved` });
      if (!id) navigate(`/segments/${saved.id}`, { replace: true });
    } catch (err) {
      setError(applyApiErrors(form, err, ['name', 'description', 'type']));
    }
  });

  const remove = () =>
    confirmDestructive({
      title: 'Delete segment',
      body: 'The segment is deleted. Its contacts are not. This cannot be undone.',
      confirmLabel: 'Delete segment',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () =>
            unwrap(
              api.DELETE('/api/v1/user/contact-segments/{id}', { params: { path: { id: id! } } }),
            ),
          'Segment deleted',
        );
        if (done) navigate('/segments');
      },
    });

  return (
    <>
      <PageHeader
        title={id ? (loaded?.name ?? 'Segment') : 'New segment'}
        description={
          dynamic
            ? 'A dynamic segment is evaluated from its rules each time it is used.'
            : 'A static segment holds the contacts added to it.'
        }
        actions={
          id && (
            <Button color="red" variant="light" onClick={remove}>
              Delete
            </Button>
          )
        }
      />
      <form onSubmit={save} noValidate>
        <Grid>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <Stack>
              {error && (
                <Alert color="red" role="alert">
                  {error}
                </Alert>
              )}
              <Paper withBorder p="md" radius="md">
                <Stack>
                  <TextInput label="Name" required {...form.getInputProps('name')} />
                  <Textarea
                    label="Description"
                    autosize
                    minRows={1}
                    {...form.getInputProps('description')}
                  />
                  {!id && (
                    <div>
                      <Text size="sm" fw={500} mb={4} id="segment-type-label">
                        Type
                      </Text>
                      <SegmentedControl
                        aria-labelledby="segment-type-label"
                        data={optionsOf(TYPE_LABELS)}
                        {...form.getInputProps('type')}
                      />
                    </div>
                  )}
                </Stack>
              </Paper>
              {dynamic && <RuleBuilder value={rules} onChange={setRules} lists={listOptions} />}
              <Group>
                <Button type="submit" loading={form.submitting}>
                  {id ? 'Save segment' : 'Create segment'}
                </Button>
              </Group>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            {dynamic && <SegmentPreviewPanel rules={rules} />}
          </Grid.Col>
        </Grid>
      </form>
      {id && (
        <Stack mt="lg">
          <SegmentMembers segmentId={id} />
        </Stack>
      )}
    </>
  );
}
