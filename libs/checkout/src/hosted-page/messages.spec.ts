import { LOCALES } from './locale';
import { MessageKey, MESSAGES, translate } from './messages';

const placeholdersOf = (text: string) =>
  [...text.matchAll(/\{([a-z]+)\}/g)].map((m) => m[1]).sort();

describe('messages', () => {
  const keys = Object.keys(MESSAGES.en).sort() as MessageKey[];

  it.each(LOCALES)('%s has every key, none empty, none extra', (locale) => {
    expect(Object.keys(MESSAGES[locale]).sort()).toEqual(keys);
    for (const key of keys) expect(MESSAGES[locale][key].trim()).not.toBe('');
  });

  it.each(LOCALES)('%s uses the same placeholders as English', (locale) => {
    for (const key of keys) {
      expect({ key, placeholders: placeholdersOf(MESSAGES[locale][key]) }).toEqual({
        key,
        placeholders: placeholdersOf(MESSAGES.en[key]),
      });
    }
  });

  it.each(LOCALES)('%s holds text only, no markup', (locale) => {
    for (const key of keys) expect(MESSAGES[locale][key]).not.toMatch(/[<>&"]/);
  });

  it('translates the languages, not only copies English', () => {
    for (const locale of LOCALES.filter((l) => l !== 'en')) {
      expect(MESSAGES[locale].statusWaiting).not.toBe(MESSAGES.en.statusWaiting);
      expect(MESSAGES[locale].warning).not.toBe(MESSAGES.en.warning);
    }
  });

  it('fills placeholders with values as they are, and leaves unknown ones visible', () => {
    expect(translate('en', 'confirmations', { n: 3, m: 12 })).toBe('3 of 12 confirmations');
    expect(translate('de', 'cancel', { merchant: 'A$&B $1' })).toBe(
      'Abbrechen und zurück zu A$&B $1',
    );
    expect(translate('en', 'cancel')).toBe('Cancel and return to {merchant}');
  });
});
