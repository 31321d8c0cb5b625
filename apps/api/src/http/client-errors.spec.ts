import { ERROR_CODES } from '@app/domain/errors/domain-errors';
import { clientErrorAnswer } from './client-errors';

function parse(answer: Buffer) {
  const text = answer.toString('utf8');
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

describe(clientErrorAnswer.name, () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'E_VALIDATION_ERROR', 'headers'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'E_VALIDATION_ERROR', 'request'],
    ['HPE_INVALID_METHOD', 404, 'E_ROW_NOT_FOUND', undefined],
    ['HPE_INVALID_URL', 422, 'E_VALIDATION_ERROR', 'url'],
    ['HPE_INVALID_HEADER_TOKEN', 422, 'E_VALIDATION_ERROR', 'headers'],
    ['HPE_INVALID_CHUNK_SIZE', 422, 'E_VALIDATION_ERROR', 'body'],
    ['HPE_A_CODE_NODE_ADDS_LATER', 422, 'E_VALIDATION_ERROR', 'request'],
    [undefined, 422, 'E_VALIDATION_ERROR', 'request'],
  ])('answers %s with %i %s', (code, status, errorCode, field) => {
    const answer = parse(clientErrorAnswer(code));
    expect(answer.status).toBe(status);
    expect(answer.head).toMatch(/\r\nConnection: close$/);
    expect(answer.body.success).toBe(false);
    expect(answer.body.code).toBe(errorCode);
    expect(ERROR_CODES).toContain(answer.body.code);
    if (field) {
      expect(answer.body.errors).toEqual([
        { field, rule: expect.any(String), message: answer.body.message },
      ]);
    } else {
      expect(answer.body.errors).toBeUndefined();
    }
  });
});
