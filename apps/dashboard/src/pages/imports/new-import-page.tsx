// Upload a CSV file, map its columns (prefilled from the suggestions), confirm consent, start.
import {
  Alert,
  Button,
  Checkbox,
  FileInput,
  Group,
  Paper,
  SegmentedControl,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconFileTypeCsv } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, dataOf } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import type { components } from '../../api/schema';
import type { FieldMapping } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { ColumnMapping } from './column-mapping';
import { optionsOf } from '../../lib/options';

type ImportUpload = components['schemas']['ContactImportUploadResponse'];
type DuplicateHandling = components['schemas']['StartImportDto']['duplicateHandling'];

/** What happens to a contact whose email exists, in the order the options show. */
const DUPLICATE_LABELS: Record<NonNullable<DuplicateHandling>, string> = {
  skip: 'Keep as it is',
  update: 'Update its fields',
};

export function NewImportPage() {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [uploaded, setUploaded] = useState<ImportUpload | null>(null);
  const [mappings, setMappings] = useState<FieldMapping[]>([]);
  const [duplicates, setDuplicates] = useState<NonNullable<DuplicateHandling>>('skip');
  const [partial, setPartial] = useState(true);
  const [listName, setListName] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  const [consent, setConsent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [consentError, setConsentError] = useState<string | null>(null);

  const upload = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const form = new FormData();
      form.append('file', file);
      const data = await dataOf(
        api.POST('/api/v1/user/contact-imports', {
          body: form as never,
          bodySerializer: (b) => b as FormData,
        }),
      );
      setUploaded(data);
      setMappings(
        data.preview.headers.map(
          (h) =>
            data.preview.suggestedMappings.find((m) => m.csvHeader === h) ?? {
              csvHeader: h,
              serviceField: 'ignore',
            },
        ),
      );
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const start = async () => {
    if (!uploaded) return;
    setConsentError(consent ? null : 'Confirm that these contacts agreed to be contacted');
    if (!consent) return;
    setBusy(true);
    setError(null);
    try {
      const started = await dataOf(
        api.POST('/api/v1/user/contact-imports/{id}/start', {
          params: { path: { id: uploaded.import.id } },
          body: {
            fieldMappings: mappings,
            duplicateHandling: duplicates,
            allowPartialUpload: partial,
            listName: listName.trim() || null,
            tags,
            consentConfirmed: consent,
          },
        }),
      );
      await queries.invalidateQueries();
      navigate(`/imports/${started.import.id}`);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fieldErrors() : {};
      if (fields.consentConfirmed) setConsentError(fields.consentConfirmed);
      setError(errorMessage(err));
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader
        title="New import"
        description="Add or update contacts from a CSV file (UTF-8, comma or semicolon separated)."
      />
      <Stack>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            1. File
          </Title>
          <Group align="flex-end">
            <FileInput
              label="CSV file"
              placeholder="Choose a file"
              accept=".csv,text/csv"
              leftSection={<IconFileTypeCsv size={18} />}
              value={file}
              onChange={setFile}
              disabled={Boolean(uploaded)}
              w={360}
            />
            <Button
              onClick={() => void upload()}
              disabled={!file || Boolean(uploaded)}
              loading={busy && !uploaded}
            >
              Upload
            </Button>
          </Group>
        </Paper>
        {uploaded && (
          <>
            <Paper withBorder p="md" radius="md">
              <Title order={2} size="h4" mb="xs">
                2. Columns
              </Title>
              <Text size="sm" c="dimmed" mb="sm">
                {uploaded.import.fileName}: each column is imported as the field you choose.
              </Text>
              <ColumnMapping
                headers={uploaded.preview.headers}
                rows={uploaded.preview.rows}
                value={mappings}
                onChange={setMappings}
              />
            </Paper>
            <Paper withBorder p="md" radius="md">
              <Title order={2} size="h4" mb="sm">
                3. Options
              </Title>
              <Stack>
                <div>
                  <Text size="sm" fw={500} id="duplicates-label">
                    A contact whose email already exists
                  </Text>
                  <SegmentedControl
                    aria-labelledby="duplicates-label"
                    value={duplicates}
                    onChange={(v) => setDuplicates(v as NonNullable<DuplicateHandling>)}
                    data={optionsOf(DUPLICATE_LABELS)}
                  />
                </div>
                <Switch
                  label="Import the valid rows when some rows are invalid"
                  description="Off: one invalid row fails the whole import and nothing is written."
                  checked={partial}
                  onChange={(e) => setPartial(e.currentTarget.checked)}
                />
                <TextInput
                  label="Add to list"
                  description="An existing list's name, or a new list"
                  value={listName}
                  onChange={(e) => setListName(e.currentTarget.value)}
                  w={360}
                />
                <TagsInput label="Tag every contact" value={tags} onChange={setTags} w={360} />
                <Checkbox
                  label="I confirm that the contacts in this file agreed to be contacted"
                  checked={consent}
                  onChange={(e) => setConsent(e.currentTarget.checked)}
                  error={consentError}
                />
                <Group>
                  <Button onClick={() => void start()} loading={busy}>
                    Start import
                  </Button>
                </Group>
              </Stack>
            </Paper>
          </>
        )}
      </Stack>
    </>
  );
}
