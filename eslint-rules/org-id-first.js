// Tenancy in the types: every method of an exported repository class takes the organization id
// as `orgId: OrgId`, first, or second after the EntityManager it runs on (`(em, orgId, …)`).
// Constructors, getters, setters and private methods are not checked. Work across organizations
// belongs in a `*Sweeper` class of a `*.sweeper.ts` file, which the configuration leaves out; a
// method that must run before an organization is known is named, with its reason, in `exempt`.
'use strict';

/** The type annotation of a parameter (`x: T`, `x: T = v`), or undefined. */
function annotationOf(param) {
  if (!param) return undefined;
  const target = param.type === 'AssignmentPattern' ? param.left : param;
  return target.typeAnnotation && target.typeAnnotation.typeAnnotation;
}

/** Whether `type` is the reference `name` (not a union, not a generic of it). */
function isReferenceTo(type, name) {
  return (
    !!type &&
    type.type === 'TSTypeReference' &&
    type.typeName.type === 'Identifier' &&
    type.typeName.name === name
  );
}

function isOrgId(param) {
  return isReferenceTo(annotationOf(param), 'OrgId');
}

/** `em`, or a parameter typed `EntityManager`: the transaction a method runs in. */
function isEntityManager(param) {
  if (!param) return false;
  const target = param.type === 'AssignmentPattern' ? param.left : param;
  if (target.type === 'Identifier' && target.name === 'em') return true;
  return isReferenceTo(annotationOf(param), 'EntityManager');
}

function memberName(key) {
  if (key.type === 'Identifier') return key.name;
  if (key.type === 'Literal') return String(key.value);
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
module.exports = {
  meta: {
    type: 'problem',
    docs: {
      description:
        "A repository method that touches one organization's rows takes `orgId: OrgId` first",
    },
    schema: [
      {
        type: 'object',
        properties: {
          exempt: {
            description: '`Class.method` → why it runs without an organization',
            type: 'object',
            additionalProperties: { type: 'string', minLength: 1 },
          },
        },
        additionalProperties: false,
      },
    ],
    messages: {
      missing:
        "{{name}} touches one organization's rows: its first parameter (after `em`, when it " +
        'takes one) must be typed `OrgId`. Work across organizations belongs in a *Sweeper ' +
        'class (*.sweeper.ts).',
    },
  },

  create(context) {
    const exempt = (context.options[0] && context.options[0].exempt) || {};
    return {
      ClassDeclaration(cls) {
        const parent = cls.parent;
        if (
          !parent ||
          (parent.type !== 'ExportNamedDeclaration' && parent.type !== 'ExportDefaultDeclaration')
        )
          return;
        const className = cls.id ? cls.id.name : 'default';
        for (const member of cls.body.body) {
          if (member.type !== 'MethodDefinition' && member.type !== 'TSAbstractMethodDefinition')
            continue;
          if (member.kind !== 'method') continue;
          if (member.accessibility === 'private' || member.key.type === 'PrivateIdentifier')
            continue;
          const name = `${className}.${memberName(member.key) ?? '[computed]'}`;
          if (Object.prototype.hasOwnProperty.call(exempt, name)) continue;
          const params = member.value.params;
          const ok = isOrgId(params[0]) || (isEntityManager(params[0]) && isOrgId(params[1]));
          if (!ok) context.report({ node: member.key, messageId: 'missing', data: { name } });
        }
      },
    };
  },
};
