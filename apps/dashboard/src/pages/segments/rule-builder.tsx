// Builds a dynamic segment's rules (§6): groups of conditions joined by all/any, nested groups.
import {
  ActionIcon,
  Button,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { channelValues, contactStatusValues, emailStatusValues } from '../../api/schema-values';
import type { SegmentGroup } from '../../api/types';
import { optionsOf } from '../../lib/options';
import {
  conditionOf,
  FIELDS,
  isGroup,
  newCondition,
  OPERATOR_LABELS,
  operatorsOf,
  type SegmentCondition,
  valueKind,
} from './rule-fields';

const MAX_DEPTH = 5;

/** How the builder words a group's operator: contacts matching all / any of these conditions. */
const MATCH_MODE_LABELS: Record<SegmentGroup['operator'], string> = { and: 'all', or: 'any' };

interface BuilderProps {
  value: SegmentGroup;
  onChange: (next: SegmentGroup) => void;
  lists: { value: string; label: string }[];
}

function ValueInput(props: {
  condition: SegmentCondition;
  label: string;
  lists: { value: string; label: string }[];
  onChange: (value: unknown) => void;
}) {
  const { condition: c, label, onChange } = props;
  const kind = valueKind(c.field, c.operator);
  const str = typeof c.value === 'string' ? c.value : '';
  const arr = Array.isArray(c.value) ? (c.value as string[]) : [];
  switch (kind) {
    case 'none':
      return null;
    case 'status':
      return (
        <Select
          aria-label={label}
          data={[...contactStatusValues]}
          value={str}
          onChange={(v) => onChange(v ?? '')}
          allowDeselect={false}
          w={200}
        />
      );
    case 'statuses':
      return (
        <MultiSelect
          aria-label={label}
          data={[...contactStatusValues]}
          value={arr}
          onChange={onChange}
          w={260}
        />
      );
    case 'emailStatus':
      return (
        <Select
          aria-label={label}
          data={[...emailStatusValues]}
          value={str}
          onChange={(v) => onChange(v ?? '')}
          w={200}
        />
      );
    case 'emailStatuses':
      return (
        <MultiSelect
          aria-label={label}
          data={[...emailStatusValues]}
          value={arr}
          onChange={onChange}
          w={260}
        />
      );
    case 'channels':
      return (
        <MultiSelect
          aria-label={label}
          data={[...channelValues]}
          value={arr}
          onChange={onChange}
          w={260}
        />
      );
    case 'lists':
      return (
        <MultiSelect
          aria-label={label}
          data={props.lists}
          value={arr}
          onChange={onChange}
          searchable
          w={260}
        />
      );
    case 'texts':
      return (
        <TagsInput
          aria-label={label}
          value={arr}
          onChange={onChange}
          placeholder="Type and press Enter"
          w={260}
        />
      );
    case 'days':
      return (
        <NumberInput
          aria-label={label}
          value={Number(c.value) || 0}
          onChange={(v) => onChange(Number(v))}
          min={1}
          max={36500}
          w={120}
        />
      );
    case 'date':
      return (
        <TextInput
          aria-label={label}
          type="date"
          value={str}
          onChange={(e) => onChange(e.currentTarget.value)}
          w={180}
        />
      );
    case 'dateRange':
      return (
        <Group gap={4}>
          <TextInput
            aria-label={`${label} from`}
            type="date"
            value={arr[0] ?? ''}
            onChange={(e) => onChange([e.currentTarget.value, arr[1] ?? ''])}
            w={170}
          />
          <Text size="sm">and</Text>
          <TextInput
            aria-label={`${label} to`}
            type="date"
            value={arr[1] ?? ''}
            onChange={(e) => onChange([arr[0] ?? '', e.currentTarget.value])}
            w={170}
          />
        </Group>
      );
    default:
      return (
        <TextInput
          aria-label={label}
          value={str}
          onChange={(e) => onChange(e.currentTarget.value)}
          w={240}
        />
      );
  }
}

function ConditionRow(props: {
  condition: SegmentCondition;
  path: string;
  lists: { value: string; label: string }[];
  onChange: (c: SegmentCondition) => void;
  onRemove: () => void;
}) {
  const { condition: c, path } = props;
  const fields = FIELDS.map((f) => ({ value: f.value, label: f.label }));
  return (
    <Group gap="xs" wrap="wrap" data-testid={`condition-${path}`}>
      <Select
        aria-label={`Field of condition ${path}`}
        data={fields}
        value={c.field}
        allowDeselect={false}
        searchable
        w={170}
        onChange={(field) => field && props.onChange(newCondition(field))}
      />
      <Select
        aria-label={`Operator of condition ${path}`}
        data={operatorsOf(c.field).map((op) => ({ value: op, label: OPERATOR_LABELS[op] }))}
        value={c.operator}
        allowDeselect={false}
        w={210}
        onChange={(operator) => operator && props.onChange(newCondition(c.field, operator))}
      />
      <ValueInput
        condition={c}
        label={`Value of condition ${path}`}
        lists={props.lists}
        onChange={(value) => props.onChange(conditionOf(c.field, c.operator, value))}
      />
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={`Remove condition ${path}`}
        onClick={props.onRemove}
      >
        <IconTrash size={16} />
      </ActionIcon>
    </Group>
  );
}

function GroupEditor(props: BuilderProps & { path: string; depth: number; onRemove?: () => void }) {
  const { value: group, onChange, path, depth } = props;
  const update = (i: number, node: SegmentCondition | SegmentGroup) =>
    onChange({ ...group, conditions: group.conditions.map((n, j) => (j === i ? node : n)) });
  const remove = (i: number) =>
    onChange({ ...group, conditions: group.conditions.filter((_, j) => j !== i) });
  const label = path ? `group ${path}` : 'the rules';

  return (
    <Paper withBorder p="sm" radius="md" bg={depth % 2 ? 'gray.0' : undefined}>
      <Stack gap="xs">
        <Group gap="xs">
          <Text size="sm">Contacts matching</Text>
          <SegmentedControl
            size="xs"
            aria-label={`Match mode of ${label}`}
            value={group.operator}
            onChange={(v) => onChange({ ...group, operator: v as SegmentGroup['operator'] })}
            data={optionsOf(MATCH_MODE_LABELS)}
          />
          <Text size="sm">of these conditions</Text>
          {props.onRemove && (
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove ${label}`}
              onClick={props.onRemove}
              ml="auto"
            >
              <IconTrash size={16} />
            </ActionIcon>
          )}
        </Group>
        {group.conditions.map((node, i) => {
          const p = path ? `${path}.${i + 1}` : String(i + 1);
          return isGroup(node) ? (
            <GroupEditor
              key={i}
              {...props}
              value={node}
              path={p}
              depth={depth + 1}
              onChange={(g) => update(i, g)}
              onRemove={() => remove(i)}
            />
          ) : (
            <ConditionRow
              key={i}
              condition={node}
              path={p}
              lists={props.lists}
              onChange={(c) => update(i, c)}
              onRemove={() => remove(i)}
            />
          );
        })}
        <Group gap="xs">
          <Button
            size="xs"
            variant="light"
            leftSection={<IconPlus size={14} />}
            onClick={() =>
              onChange({ ...group, conditions: [...group.conditions, newCondition()] })
            }
          >
            Add condition
          </Button>
          {depth < MAX_DEPTH - 1 && (
            <Button
              size="xs"
              variant="subtle"
              leftSection={<IconPlus size={14} />}
              onClick={() =>
                onChange({
                  ...group,
                  conditions: [
                    ...group.conditions,
                    { operator: 'and', conditions: [newCondition()] },
                  ],
                })
              }
            >
              Add group
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

export function RuleBuilder(props: BuilderProps) {
  return <GroupEditor {...props} path="" depth={0} />;
}
