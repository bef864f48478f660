import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { IntegerSetting } from './integer-setting';

class Settings {
  @IntegerSetting({ min: 1, max: 10 })
  COUNT = 5;

  @IntegerSetting({ min: 0, max: 60, minMeans: 'none' })
  TIMEOUT_MS = 30;
}

function problems(raw: Record<string, string>): string[] {
  const settings = plainToInstance(Settings, raw);
  return validateSync(settings).flatMap((error) => Object.values(error.constraints ?? {}));
}

describe('IntegerSetting', () => {
  it('turns a whole-number string into a number within the range', () => {
    expect(problems({ COUNT: '10', TIMEOUT_MS: '0' })).toEqual([]);
    expect(plainToInstance(Settings, { COUNT: '7' }).COUNT).toBe(7);
  });

  it.each(['0', '11', '1.5', 'abc', '-1'])(
    'refuses COUNT=%s with one message naming it',
    (value) => {
      expect(new Set(problems({ COUNT: value }))).toEqual(
        new Set(['COUNT must be a whole number from 1 to 10.']),
      );
    },
  );

  it('says what the minimum stands for', () => {
    expect(new Set(problems({ TIMEOUT_MS: '61' }))).toEqual(
      new Set(['TIMEOUT_MS must be a whole number from 0 (none) to 60.']),
    );
  });
});
