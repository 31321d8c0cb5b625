// Runs in every e2e file before its tests: passwords are hashed at a test cost (scrypt N=2^12
// instead of 2^17), or the suite's hundreds of logins would take minutes. The production cost is
// checked by the passwords unit spec and by the login tests that switch back to it.
import { setPasswordParamsForTests } from '../../libs/domain/src/crypto/passwords';

export const TEST_PASSWORD_PARAMS = { ln: 12, r: 8, p: 1 };

setPasswordParamsForTests(TEST_PASSWORD_PARAMS);
