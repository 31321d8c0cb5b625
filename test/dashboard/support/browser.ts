// The dashboard's browser tests: the real api (listening on a free port, serving the dashboard
// build) and worker in this process, an SMTP sink, a fresh organization with a signed-in-able
// owner, and Debian's Chromium driven by playwright-core.
import { INestApplication } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import AxeBuilder from '@axe-core/playwright';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, chromium, Locator, Page } from 'playwright-core';
import { Organization, OrganizationService, Plan, UserService } from '@app/domain';
import { createTestApp } from '../../support/app';
import { waitFor } from '../../support/wait-for';
import { createSession, Session } from '../../support/session';
import { sendingEnv, startWorker } from '../../sending/support/sending';
import { startSmtpSink, SmtpSink } from '../../sending/support/smtp-sink';
import { ensureBuilt } from '../../selfhost/support';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const DASHBOARD_DIR = join(__dirname, '../../../dist/dashboard');

/** Without the background-networking flags Chromium keeps calling out to a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const PASSWORD = 'dashboard-password-123';

export interface DashboardStack {
  app: INestApplication;
  worker: TestingModule;
  sink: SmtpSink;
  browser: Browser;
  page: Page;
  baseUrl: string;
  /** The organization with an all-scope API key (for arranging data through the API). */
  s: Session;
  email: string;
  close(): Promise<void>;
}

export async function startDashboardStack(
  opts: { plan?: Plan; env?: Record<string, string>; name?: string } = {},
): Promise<DashboardStack> {
  // The test command builds the dashboard first; a file run alone builds it when it is stale.
  ensureBuilt('dashboard');
  const sink = await startSmtpSink();
  sendingEnv({ SMTP_OUTBOUND_URL: sink.url, DASHBOARD_DIR, ...opts.env });
  const app = await createTestApp();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const worker = await startWorker();
  const s = await createSession(app, { plan: opts.plan ?? 'pro', name: opts.name });
  const email = `owner-${randomUUID().slice(0, 8)}@example.test`;
  await app
    .get(UserService)
    .createUser({ email, password: PASSWORD, organizationId: s.org.id, role: 'owner' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return {
    app,
    worker,
    sink,
    browser,
    page,
    baseUrl: `http://127.0.0.1:${port}/dashboard`,
    s,
    email,
    async close() {
      await browser.close();
      await worker.close();
      await app.close();
      await sink.close();
    },
  };
}

/**
 * Signs in through the form and waits for the overview (one organization: no picker). Starts from
 * the overview's address: the sign-in page returns to the page that sent the user there.
 */
export async function signIn(stack: DashboardStack, email = stack.email): Promise<void> {
  await submitSignIn(stack, email);
  await stack.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/** Fills and sends the sign-in form from the overview's address; waits for nothing after. */
export async function submitSignIn(stack: DashboardStack, email = stack.email): Promise<void> {
  const { page } = stack;
  await page.goto(`${stack.baseUrl}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A second organization of the stack's user (admin there), so sign-in asks which one. */
export async function addOrganization(stack: DashboardStack): Promise<Organization> {
  const org = await stack.app.get(OrganizationService).create({ name: `Second ${Date.now()}` });
  await stack.app.get(UserService).createUser({
    email: stack.email,
    password: PASSWORD,
    organizationId: org.id,
    role: 'admin',
  });
  return org;
}

/** Goes to a dashboard page through the sidebar, as a user would. */
export async function navigate(page: Page, label: string, heading = label): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/**
 * Accessibility basics of the page as it stands: no axe violation of serious or critical impact.
 * Returns the violations so a failing test names them.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // The pointer rests where the last click was; a hover colour is not the page's resting state.
  await page.mouse.move(0, 0);
  // A dialog fading in has colours between its start and end: check the settled page.
  // (Endless animations, such as a spinner, are not transitions and are left alone.)
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
  );
  // Only violations are read: axe describes every passing node too unless told not to. Legacy
  // mode runs axe in the page itself instead of opening a blank page to gather each frame's
  // results; the dashboard has no frames. Together a check takes a quarter of the time.
  const result = await new AxeBuilder({ page })
    .options({ resultTypes: ['violations'] })
    .setLegacyMode()
    .analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ` +
        v.nodes.map((n) => `${n.html.slice(0, 160)} ${n.failureSummary ?? ''}`).join(' | '),
    );
}

/** Waits until the locator's text satisfies `ok` (the page updates asynchronously). */
export async function textEventually(
  locator: Locator,
  ok: (text: string) => boolean,
  timeoutMs = 15_000,
): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      last = (await locator.textContent({ timeout: timeoutMs }).catch(() => null)) ?? '';
      return ok(last) && last;
    },
    { what: 'the expected text', timeoutMs, everyMs: 100 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last was: ${last}`);
  });
}

/** Picks `option` in the Mantine Select (or MultiSelect) labelled `label`. */
export async function choose(
  page: Page,
  label: string | RegExp,
  option: string | RegExp,
): Promise<void> {
  const field =
    typeof label === 'string' ? page.getByLabel(label, { exact: true }) : page.getByLabel(label);
  await field.first().click();
  await page.getByRole('option', { name: option }).first().click();
}
