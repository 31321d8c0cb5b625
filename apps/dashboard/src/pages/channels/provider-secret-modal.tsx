// The `http` provider's generated signing secret, shown once after the account is connected.
import { SecretModal } from '../../components/secret-modal';

export function ProviderSecretModal(props: { secret: string | null; onClose: () => void }) {
  return (
    <SecretModal
      {...props}
      testId="provider-secret"
      use="Your service uses it to check the webhook-signature header of each message it receives, and to sign what it posts to the callback URL."
      lost="Lost it? Replace the credentials on the account’s page with a secret of your own."
    />
  );
}
