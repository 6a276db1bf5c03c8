import { batches, parseCsv, parseCsvLines, recipientsOf } from '../src/csv';

describe('reading a CSV file of recipients', () => {
  it('when fields are quoted, hold commas, quotes and line breaks, and lines end in CRLF after a BOM, then each field comes back whole', () => {
    const text = '\ufeffphone,message\r\n+33612345678,"Bonjour, ""Ana""\r\nà demain"\r\n\r\n+33687654321,Salut\n';
    expect(parseCsv(text)).toEqual([
      ['phone', 'message'],
      ['+33612345678', 'Bonjour, "Ana"\r\nà demain'],
      ['+33687654321', 'Salut'],
    ]);
    expect(() => parseCsv('a,"b')).toThrow(/quoted/);
    expect(parseCsvLines(text).map((r) => r.line)).toEqual([1, 2, 5]);
  });

  it('when the file has a phone column and no message column, then every row takes --message, by its line', () => {
    const { recipients, personalised } = recipientsOf('Name,Phone\nAna,+33612345678\nBo, +33687654321 \n', 'Bonjour');
    expect(personalised).toBe(false);
    expect(recipients).toEqual([
      { line: 2, to: '+33612345678' },
      { line: 3, to: '+33687654321' },
    ]);
  });

  it('when the file has a message column, then rows keep their own text and the empty ones take --message', () => {
    const { recipients, personalised } = recipientsOf('to,text\n+33612345678,Bonjour Ana\n+33687654321,\n', 'Bonjour');
    expect(personalised).toBe(true);
    expect(recipients).toEqual([
      { line: 2, to: '+33612345678', message: 'Bonjour Ana' },
      { line: 3, to: '+33687654321' },
    ]);
  });

  it('when rows lack a number or a text, or the header has no phone column, then the whole file is refused with the lines', () => {
    expect(() => recipientsOf('phone,message\n+33612345678,\n,Bonjour\n', undefined)).toThrow(
      'line 2: no message (give --message for rows without one)\nline 3: no number',
    );
    expect(() => recipientsOf('name,email\nAna,a@example.com\n', 'x')).toThrow(/no phone column/);
    expect(() => recipientsOf('phone\n+33612345678\n', undefined)).toThrow(/no message column and no --message/);
    expect(() => recipientsOf('phone\n', 'x')).toThrow(/no recipient/);
    expect(() => recipientsOf('', 'x')).toThrow(/empty/);
  });

  it('when 250 rows are cut in batches of 100, then the batches are 100, 100 and 50 in file order', () => {
    const rows = Array.from({ length: 250 }, (_, i) => i);
    expect(batches(rows, 100).map((b) => [b.length, b[0]])).toEqual([
      [100, 0],
      [100, 100],
      [50, 200],
    ]);
  });
});
