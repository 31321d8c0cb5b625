// An endpoint's signing secret, shown once after create or regenerate.
import { SecretModal as ShownOnce } from '../../components/secret-modal';

export function SecretModal({ secret, onClose }: { secret: string | null; onClose: () => void }) {
  return (
    <ShownOnce
      secret={secret}
      onClose={onClose}
      testId="webhook-secret"
      use="Your server uses it to check the X-Webhook-Signature header of every request."
      lost="Lost it? Regenerate the secret from the endpoint page; the old one stops working at once."
    />
  );
}
