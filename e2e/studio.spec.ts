// The config studio: each kind authored through the form with the YAML following, problems hit,
// jumped to and fixed, YAML edits flowing back into the form, the playgrounds, import and export.
import { expect, test, type Page } from './fixtures.js';
import { readFileSync } from 'node:fs';
import { shot } from './helpers.js';

/** The YAML editor's text, read from Monaco's rendered lines (the documents here fit on screen). */
async function yamlText(page: Page): Promise<string> {
  return page
    .getByTestId('yaml-editor')
    .locator('.view-line')
    .evaluateAll((els) =>
      els
        .map((e) => [parseFloat((e as HTMLElement).style.top), (e.textContent ?? '').replace(/\u00a0/g, ' ')] as const)
        .sort((a, b) => a[0] - b[0])
        .map((x) => x[1])
        .join('\n'),
    );
}

async function openKind(page: Page, kind: string): Promise<void> {
  await page.goto(`/studio/${kind}`);
  await expect(page.getByTestId('yaml-editor')).toHaveAttribute('data-editor', 'monaco', { timeout: 20_000 });
  await expect(page.getByTestId('yaml-editor').locator('.view-line').first()).toBeVisible();
}

const field = (page: Page, path: string) => page.locator(`[data-path="${path}"]`).first();
const input = (page: Page, path: string) => field(page, path).locator('input, textarea, select').first();
const problem = (page: Page, path: string) => page.getByTestId('problem').and(page.locator(`[data-path="${path}"]`));

/** Replaces the whole YAML through the editor, as a user typing would. */
async function typeYaml(page: Page, text: string): Promise<void> {
  await page.getByTestId('yaml-editor').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test('the studio is linked from the header and lists every kind', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('nav-studio').click();
  await expect(page).toHaveURL(/\/studio$/);
  for (const k of ['Admission', 'Authentication', 'Authorization', 'Encryption', 'Tracing']) await expect(page.getByTestId(`studio-tile-${k}Configuration`)).toBeVisible();
  await shot(page, 'studio-home');
  await page.getByTestId('studio-tile-TracingConfiguration').click();
  await expect(page).toHaveURL(/\/studio\/TracingConfiguration$/);
  await expect(page.getByTestId('studio-kind-TracingConfiguration')).toHaveAttribute('aria-current', 'page');
});

test('authentication: form to YAML, a problem found and fixed, the token playground', async ({ page }) => {
  await openKind(page, 'AuthenticationConfiguration');
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
  await page.getByTestId('add-jwt').click();
  await expect(problem(page, 'jwt[0].issuer.url')).toContainText('Required value');

  // a wrong scheme: the problem names the field; clicking it focuses the input and reveals the YAML line
  await input(page, 'jwt[0].issuer.url').fill('http://issuer.example.com');
  await expect(problem(page, 'jwt[0].issuer.url')).toContainText('URL scheme must be https');
  await page.getByTestId('tab-playground').click();
  await problem(page, 'jwt[0].issuer.url').click();
  await expect(input(page, 'jwt[0].issuer.url')).toBeFocused();
  await expect(page.getByTestId('studio-yaml')).toHaveAttribute('data-revealed-line', '5');
  await shot(page, 'studio-authentication-problem');
  await input(page, 'jwt[0].issuer.url').fill('https://issuer.example.com');
  await expect(problem(page, 'jwt[0].issuer.url')).toHaveCount(0);
  await input(page, 'jwt[0].issuer.audiences[0]').fill('kubernetes');

  // a CEL claim rule with a live compile error, then fixed
  await page.getByTestId('add-jwt[0].claimValidationRules').click();
  const rule = field(page, 'jwt[0].claimValidationRules[0]');
  await rule.getByText('CEL expression').click();
  await input(page, 'jwt[0].claimValidationRules[0].expression').fill("claims.hd ==");
  await expect(rule.getByTestId('cel-status')).toHaveAttribute('data-state', 'error');
  await expect(problem(page, 'jwt[0].claimValidationRules[0].expression')).toContainText('compilation failed');
  await input(page, 'jwt[0].claimValidationRules[0].expression').fill("claims.hd == 'example.com'");
  await expect(rule.getByTestId('cel-status')).toHaveAttribute('data-state', 'ok');
  await expect(rule.getByTestId('cel-status')).toContainText('bool');

  // groups with a prefix
  await page.getByTestId('add-jwt[0].claimMappings.groups').click();
  await input(page, 'jwt[0].claimMappings.groups.prefix').fill('oidc:');
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
  await expect(page.getByTestId('no-problems')).toBeVisible();
  const yaml = await yamlText(page);
  expect(yaml).toContain('url: https://issuer.example.com');
  expect(yaml).toContain("expression: claims.hd == 'example.com'");
  expect(yaml).toMatch(/prefix: "oidc:"|prefix: 'oidc:'/);
  await shot(page, 'studio-authentication-form');

  // playground: sample claims fitted to the issuer, plus the hd claim the rule wants
  await page.getByTestId('tab-playground').click();
  await page.getByTestId('sample-claims').click();
  const claims = JSON.parse(await page.getByTestId('claims-input').inputValue()) as Record<string, unknown>;
  expect(claims.iss).toBe('https://issuer.example.com');
  await page.getByTestId('claims-input').fill(JSON.stringify({ ...claims, hd: 'example.com' }, null, 2));
  await page.getByTestId('build-token').click();
  await expect(page.getByTestId('authn-summary')).toHaveAttribute('data-authenticated', 'true');
  await expect(page.getByTestId('authn-summary')).toContainText('authenticated as "1234567890" by jwt[0]');
  await page.getByTestId('authn-summary').scrollIntoViewIfNeeded();
  await expect(page.getByTestId('signature-status')).toHaveAttribute('data-status', 'skipped');
  await expect(page.getByTestId('user-groups')).toHaveText('oidc:developers, oidc:oncall');
  await expect(page.getByTestId('claim-rules').locator('tr[data-status=pass]')).toHaveCount(1);
  await shot(page, 'studio-authentication-playground');

  // signed with a generated key: verified; a token for another audience fails the audience check
  await page.getByTestId('sign-token').click();
  await expect(page.getByTestId('signature-status')).toHaveAttribute('data-status', 'verified');
  await page.getByTestId('claims-input').fill(JSON.stringify({ ...claims, hd: 'example.com', aud: ['someone-else'] }, null, 2));
  await page.getByTestId('sign-token').click();
  await expect(page.getByTestId('authn-summary')).toHaveAttribute('data-authenticated', 'false');
  await expect(page.getByTestId('authn-summary')).toContainText('expected audience in ["kubernetes"]');
  // with the JWKS still there, an unsigned token is refused
  await page.getByTestId('build-token').click();
  await expect(page.getByTestId('signature-status')).toHaveAttribute('data-status', 'invalid');
  await expect(page.getByTestId('authn-summary')).toContainText('unsigned');

  // the changes since the page opened, as a diff
  await page.getByTestId('tab-changes').click();
  await expect(page.getByTestId('changes-diff').locator('.monaco-diff-editor')).toBeVisible();
  await expect(page.getByTestId('changes-diff')).toContainText('issuer.example.com');
  await page.getByTestId('tab-yaml').click();

  // export as a download
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-yaml').click()]);
  expect(download.suggestedFilename()).toBe('authentication-config.yaml');
  const saved = readFileSync((await download.path())!, 'utf8');
  expect(saved).toContain('kind: AuthenticationConfiguration');
  expect(saved).toContain('url: https://issuer.example.com');
});

test('authorization: webhook and RBAC through the form, reorder, the access review playground', async ({ page, context }) => {
  await openKind(page, 'AuthorizationConfiguration');
  await expect(problem(page, 'authorizers')).toContainText('at least one authorization mode must be defined');
  await problem(page, 'authorizers').click();
  await expect(page.getByTestId('add-authorizers')).toBeFocused();
  await page.getByTestId('add-authorizers').click();
  await expect(page.getByTestId('studio-status')).toHaveText('valid');

  // an invalid name and an over-long timeout, both fixed
  await input(page, 'authorizers[0].name').fill('Policy');
  await expect(problem(page, 'authorizers[0].name')).toContainText('RFC 1123 label');
  await input(page, 'authorizers[0].name').fill('policy');
  await input(page, 'authorizers[0].webhook.timeout').fill('45s');
  await expect(problem(page, 'authorizers[0].webhook.timeout')).toContainText('must be > 0s and <= 30s');
  await input(page, 'authorizers[0].webhook.timeout').fill('10s');
  await expect(field(page, 'authorizers[0].webhook.timeout').getByTestId('duration-hint')).toHaveText('= 10 s');
  await expect(problem(page, 'authorizers[0].webhook.timeout')).toHaveCount(0);

  await page.getByTestId('add-authorizers[0].webhook.matchConditions').click();
  await input(page, 'authorizers[0].webhook.matchConditions[0].expression').fill('has(request.resourceAttributes)');
  await page.getByTestId('add-authorizers[0].webhook.matchConditions').click();
  await input(page, 'authorizers[0].webhook.matchConditions[1].expression').fill("request.resourceAttributes.namespace == 'kube-system'");

  // a second authorizer turned into RBAC: its webhook section goes away
  await page.getByTestId('add-authorizers').click();
  await input(page, 'authorizers[1].type').selectOption('RBAC');
  await input(page, 'authorizers[1].name').fill('rbac');
  await expect(field(page, 'authorizers[1].webhook')).toHaveCount(0);
  await expect(page.getByTestId('studio-status')).toHaveText('valid');

  // reorder: RBAC first, then back
  await page.getByTestId('item-authorizers[1]').getByTestId('move-up').click();
  await expect(page.getByTestId('item-authorizers[0]')).toContainText('RBAC · rbac');
  expect((await yamlText(page)).indexOf('type: RBAC')).toBeLessThan((await yamlText(page)).indexOf('type: Webhook'));
  await page.getByTestId('item-authorizers[0]').getByTestId('move-down').click();
  await expect(page.getByTestId('item-authorizers[0]')).toContainText('Webhook · policy');
  await shot(page, 'studio-authorization-form');

  // playground: the sample review (a secret in kube-system) is sent to the webhook
  await page.getByTestId('tab-playground').click();
  const webhookStep = page.locator('[data-testid=authz-step][data-name=policy]');
  await expect(webhookStep).toHaveAttribute('data-verdict', 'sent');
  await expect(webhookStep.locator('[data-testid=condition][data-status=true]')).toHaveCount(2);
  await expect(page.locator('[data-testid=authz-step][data-name=rbac]')).toHaveAttribute('data-verdict', 'consulted');
  await shot(page, 'studio-authorization-playground');
  // another namespace: the second condition is false and the webhook is skipped
  await page.getByTestId('sar-namespace').fill('default');
  await expect(webhookStep).toHaveAttribute('data-verdict', 'skipped');
  // a non-resource request written as YAML
  await page.getByTestId('sar-mode-yaml').click();
  await page.getByTestId('sar-yaml').fill('spec:\n  user: bob\n  nonResourceAttributes:\n    path: /healthz\n    verb: get\n');
  await expect(webhookStep).toHaveAttribute('data-verdict', 'skipped');
  await expect(webhookStep.locator('[data-testid=condition]').first()).toHaveAttribute('data-status', 'false');
  await expect(page.getByTestId('authz-summary')).toContainText('asked in order: rbac');

  // a result's path opens the form on that field, expanding the collapsed authorizer
  await page.getByTestId('tab-form').click();
  await page.getByTestId('item-authorizers[0]').getByRole('button', { name: 'Collapse' }).first().click();
  await expect(field(page, 'authorizers[0].webhook')).toHaveCount(0);
  await page.getByTestId('tab-playground').click();
  await webhookStep.getByRole('button', { name: 'authorizers[0].webhook.matchConditions[1].expression' }).click();
  await expect(input(page, 'authorizers[0].webhook.matchConditions[1].expression')).toBeFocused();
  await expect(page.getByTestId('studio-yaml')).toHaveAttribute('data-revealed-line', /^1[0-9]$/);

  // the dark theme reaches the editor too
  await page.getByTestId('theme-toggle').click();
  await expect(page.getByTestId('yaml-editor').locator('.monaco-editor')).toHaveClass(/vs-dark/);
  await shot(page, 'studio-authorization-dark');

  // copy to the clipboard
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-yaml').click();
  await expect(page.getByTestId('studio-notice')).toHaveText('YAML copied to the clipboard');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain('name: policy');
  expect(copied).toContain('type: RBAC');
});

test('encryption: keys generated per provider, a bad key fixed, the resource playground, import', async ({ page }) => {
  await openKind(page, 'EncryptionConfiguration');
  await page.getByTestId('add-resources').click();
  await input(page, 'resources[0].resources[0]').fill('secrets');
  // the new entry came with a generated 32-byte aescbc key
  await expect(field(page, 'resources[0].providers[0].aescbc.keys[0].secret').getByTestId('key-hint')).toHaveText('✓ 32 bytes');
  await expect(page.getByTestId('studio-status')).toHaveText('valid');

  // a key of the wrong length, then regenerated
  await input(page, 'resources[0].providers[0].aescbc.keys[0].secret').fill('c2hvcnQ=');
  await expect(problem(page, 'resources[0].providers[0].aescbc.keys[0].secret')).toContainText('got 5, expected one of [32]');
  await field(page, 'resources[0].providers[0].aescbc.keys[0].secret').getByTestId('generate-key').click();
  await expect(problem(page, 'resources[0].providers[0].aescbc.keys[0].secret')).toHaveCount(0);

  // switch the provider to aesgcm (fresh keys come with it) and add identity for reads
  await page.getByTestId('oneof-resources[0].providers[0]').selectOption('aesgcm');
  await expect(field(page, 'resources[0].providers[0].aesgcm.keys[0].secret').getByTestId('key-hint')).toHaveText('✓ 32 bytes');
  await page.getByTestId('add-resources[0].providers').click();
  await expect(page.getByTestId('oneof-resources[0].providers[1]')).toHaveValue('identity');
  // a third provider added and removed again
  await page.getByTestId('add-resources[0].providers').click();
  await expect(page.getByTestId('item-resources[0].providers[2]')).toBeVisible();
  await page.getByTestId('item-resources[0].providers[2]').getByTestId('remove-item').click();
  await expect(page.getByTestId('item-resources[0].providers[2]')).toHaveCount(0);
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
  const yaml = await yamlText(page);
  expect(yaml).toContain('- aesgcm:');
  expect(yaml).toContain('- identity: {}');
  await shot(page, 'studio-encryption-form');

  // playground
  await page.getByTestId('tab-playground').click();
  await expect(page.getByTestId('encryption-summary')).toHaveAttribute('data-encrypted', 'true');
  await expect(page.getByTestId('write-provider')).toHaveText('aesgcm with key "key1"');
  await expect(page.getByTestId('read-order').getByTestId('provider-step')).toHaveCount(2);
  await page.getByTestId('resource-input').fill('deployments.apps');
  await expect(page.getByTestId('encryption-summary')).toContainText('not covered');

  // open a file with overlapping entries: they are flagged, and a custom resource falls to *.*
  await page.getByTestId('file-input').setInputFiles({
    name: 'encryption.yaml',
    mimeType: 'application/yaml',
    buffer: Buffer.from(`apiVersion: apiserver.config.service.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - secretbox:
          keys:
            - name: box
              secret: ${Buffer.alloc(32, 7).toString('base64')}
  - resources: [secrets]
    providers:
      - identity: {}
  - resources: ['*.*']
    providers:
      - identity: {}
`),
  });
  await expect(page.getByTestId('studio-notice')).toHaveText('encryption.yaml loaded');
  await expect(page.getByTestId('encryption-flags').locator('[data-kind=reads-only]')).toContainText('secrets is first listed in resources[0]');
  await expect(page.getByTestId('encryption-flags').locator('[data-kind=narrowed]')).toBeVisible();
  await page.getByTestId('resource-input').fill('crontabs.stable.example.com');
  await expect(page.getByTestId('encryption-summary')).toHaveAttribute('data-encrypted', 'false');
  await expect(page.getByTestId('encryption-summary')).toContainText('matched by *.*');
  await page.getByTestId('resource-input').fill('secrets');
  await expect(page.getByTestId('read-order').getByTestId('provider-step')).toHaveCount(2);
  await shot(page, 'studio-encryption-playground');
});

test('admission: a plugin with inline settings, an unknown plugin fixed, paste of another kind', async ({ page }) => {
  await openKind(page, 'AdmissionConfiguration');
  await page.getByTestId('add-plugins').click();
  await input(page, 'plugins[0].name').fill('PodSecurty');
  await expect(problem(page, 'plugins[0].name')).toContainText('Unsupported value: "PodSecurty"');
  await input(page, 'plugins[0].name').fill('PodSecurity');
  await input(page, 'plugins[0].configuration').fill('apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n');
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
  const yaml = await yamlText(page);
  expect(yaml).toContain('- name: PodSecurity');
  expect(yaml).toContain('enforce: baseline');
  // the common setup template
  await page.getByTestId('template-picker').selectOption('admission-pod-security');
  await expect(page.getByTestId('item-plugins[1]')).toContainText('EventRateLimit');
  await shot(page, 'studio-admission');

  // pasting a document of another kind opens it on its own page
  await page.getByTestId('paste-open').click();
  await page.getByTestId('paste-text').fill('{"apiVersion": "apiserver.config.service.io/v1", "kind": "TracingConfiguration", "samplingRatePerMillion": 250}');
  await page.getByTestId('paste-use').click();
  await expect(page).toHaveURL(/\/studio\/TracingConfiguration$/);
  await expect(input(page, 'samplingRatePerMillion')).toHaveValue('250');
});

test('tracing: range and endpoint problems, YAML typed in the editor flows into the form', async ({ page }) => {
  await openKind(page, 'TracingConfiguration');
  await input(page, 'samplingRatePerMillion').fill('2000000');
  await expect(problem(page, 'samplingRatePerMillion')).toBeVisible();
  await input(page, 'samplingRatePerMillion').fill('10000');
  await input(page, 'endpoint').fill('collector');
  await expect(problem(page, 'endpoint')).toContainText('must be host:port');
  await input(page, 'endpoint').fill('collector.tracing:4317');
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
  await expect(page.getByTestId('tracing-summary')).toContainText('collector.tracing:4317');
  await expect(page.getByTestId('tracing-summary')).toContainText('(1%)');
  expect(await yamlText(page)).toContain('samplingRatePerMillion: 10000');

  // the editor completes from the kind's JSON Schema
  await typeYaml(page, 'apiVersion: apiserver.config.service.io/v1\nkind: TracingConfiguration\n');
  await page.keyboard.press('ControlOrMeta+Space');
  await expect(page.locator('.suggest-widget')).toContainText('samplingRatePerMillion');
  await page.keyboard.press('Escape');

  // typing in the editor: the form follows; a syntax error locks the form until fixed
  await typeYaml(page, 'apiVersion: apiserver.config.service.io/v1\nkind: TracingConfiguration\nendpoint: otel.example.com:4317\nsamplingRatePerMillion: 500\n');
  await expect(input(page, 'endpoint')).toHaveValue('otel.example.com:4317');
  await expect(input(page, 'samplingRatePerMillion')).toHaveValue('500');
  await page.keyboard.insertText('broken: a: b\n');
  await expect(page.getByTestId('form-locked')).toBeVisible();
  const syntax = page.getByTestId('problem').first();
  await expect(syntax).toContainText('yaml: line');
  await syntax.click();
  await expect(page.getByTestId('studio-yaml')).toHaveAttribute('data-revealed-line', /^[0-9]+$/);
  await shot(page, 'studio-tracing-syntax-error');
  // select the broken last line and delete it
  await page.getByTestId('yaml-editor').locator('.view-lines').click();
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+ArrowUp');
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('form-locked')).toHaveCount(0);
  await expect(page.getByTestId('studio-status')).toHaveText('valid');
});
