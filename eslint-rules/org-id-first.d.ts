// The type of the org-id-first rule module (org-id-first.js), for its spec.
import type { Rule } from 'eslint';

declare const rule: Rule.RuleModule;
export = rule;
