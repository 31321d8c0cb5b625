// Downloads a file the API serves behind the credential (the errors CSV): fetched with the
// signed-in user's headers, then handed to the browser as a file.
import { api } from '../../api/client';
import { ApiError, toErrorBody } from '../../api/errors';

export async function downloadImportErrors(id: string, fileName: string): Promise<void> {
  const { response } = await api.GET('/api/v1/user/contact-imports/{id}/errors', {
    params: { path: { id } },
    parseAs: 'stream',
  });
  if (!response.ok) {
    throw new ApiError(
      response.status,
      toErrorBody(response.status, await response.json().catch(() => null)),
    );
  }
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
