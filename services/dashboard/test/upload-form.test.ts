import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { readUploadForm } from '../src/http/upload-form';
import { parseCsv } from '../src/use-cases/campaign-csv';

/** A request body that arrives in pieces of `size` bytes. */
function body(encoded: string, size: number): IncomingMessage {
  const stream = new PassThrough();
  const bytes = Buffer.from(encoded, 'utf8');
  for (let at = 0; at < bytes.length; at += size) stream.write(bytes.subarray(at, at + size));
  stream.end();
  return stream as unknown as IncomingMessage;
}

describe('the campaign upload form, read as it comes', () => {
  const csv = '\uFEFFphone;prénom;note\r\n+33612345678;"Zoé & Cie";"100 % = ok"\r\n+33612345679;Łukasz 👋;x+y\r\n';
  const encoded = new URLSearchParams({ _csrf: 'tok%en', name: 'Soldes d’été', file_name: 'clients.csv', csv }).toString();

  it('when the body comes in pieces of any size, then the fields and the file are those of the whole body', async () => {
    for (const size of [1, 2, 3, 5, 7, 64, 4096]) {
      const { fields, csv: read } = await readUploadForm(body(encoded, size));
      expect([...fields]).toEqual([
        ['_csrf', 'tok%en'],
        ['name', 'Soldes d’été'],
        ['file_name', 'clients.csv'],
      ]);
      // The BOM is read as a BOM, not kept as text.
      expect(read).toEqual({ text: csv.slice(1), file: parseCsv(csv) });
    }
  });

  it('when a percent sign starts no escape, then it stays as it is, as URLSearchParams reads it', async () => {
    const raw = '_csrf=a%zzb%4&name=100%+sure&csv=phone%0A%2B33612345678%0A';
    const { fields, csv: read } = await readUploadForm(body(raw, 3));
    const expected = new URLSearchParams(raw);
    expect(fields.get('_csrf')).toBe(expected.get('_csrf'));
    expect(fields.get('name')).toBe(expected.get('name'));
    expect(read).toMatchObject({ text: expected.get('csv') });
  });

  it('when the file is over 2 MB, then it is refused as too large before the rest of the body is read', async () => {
    const stream = new PassThrough();
    const request = readUploadForm(stream as unknown as IncomingMessage);
    stream.write('_csrf=t&name=x&csv=phone%0A');
    const row = Buffer.from(`${encodeURIComponent('+33612345678,')}${'a'.repeat(1000)}%0A`);
    let written = 0;
    let settled = false;
    void request.then(() => (settled = true));
    while (!settled && written < 10 * 1024 * 1024) {
      stream.write(row);
      written += row.length;
      await new Promise((resolve) => setImmediate(resolve));
    }

    expect(await request).toMatchObject({ csv: { error: expect.stringMatching(/over 2 MB/), tooLarge: true } });
    expect(written).toBeLessThan(2.2 * 1024 * 1024);
    stream.end();
  });

  it('when the other fields are over 64 KiB, then the form is refused as too large', async () => {
    const { csv: read } = await readUploadForm(body(`name=${'n'.repeat(70_000)}&csv=phone%0A1%0A`, 4096));
    expect(read).toMatchObject({ error: 'The form is too large.', tooLarge: true });
  });

  it('when there is no file or only blanks, then it asks for one', async () => {
    expect((await readUploadForm(body('name=x', 10))).csv).toEqual({ error: 'Choose a CSV file.' });
    expect((await readUploadForm(body('name=x&csv=+%0A+', 10))).csv).toEqual({ error: 'Choose a CSV file.' });
  });
});
