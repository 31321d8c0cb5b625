import { resolveTarget, TargetNotAllowedError } from './target';

describe('resolveTarget', () => {
  it('refuses a name when any of its addresses is private, and allows all when switched on', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget('mixed.example', false, lookup)).rejects.toBeInstanceOf(
      TargetNotAllowedError,
    );
    await expect(resolveTarget('mixed.example', true, lookup)).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('connects to the checked address of the answer', async () => {
    const lookup = async () => [{ address: '2606:4700:4700::1111', family: 6 }];
    await expect(resolveTarget('v6.example', false, lookup)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('treats localhost names as loopback whatever DNS says, and checks literals without DNS', async () => {
    const lookup = jest.fn(async () => [{ address: '93.184.216.34', family: 4 }]);
    await expect(resolveTarget('api.localhost', false, lookup)).rejects.toThrow(
      'Target address not allowed: api.localhost is a loopback address',
    );
    const failing = async () => {
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    };
    await expect(resolveTarget('localhost.', false, failing)).rejects.toBeInstanceOf(
      TargetNotAllowedError,
    );
    await expect(resolveTarget('nowhere.example', false, failing)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    lookup.mockClear();
    await expect(resolveTarget('[::1]', false, lookup)).rejects.toThrow(
      '::1 is a loopback address',
    );
    expect(lookup).not.toHaveBeenCalled();
  });
});
