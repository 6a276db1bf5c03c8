import { CsvRecordReader, readCsvRecords } from '../src';

describe('the CSV reader', () => {
  it('when a file is fed in pieces that cut a quoted field, then each record comes back whole with its line', () => {
    const reader = new CsvRecordReader({ separator: ',' });
    for (const piece of ['\ufeffa,b\r\n1,"x, ""y', '""\nz"\n\n2,w']) expect(reader.feed(piece)).toBeUndefined();
    expect(reader.end()).toEqual({
      records: [
        { line: 1, cells: ['a', 'b'] },
        { line: 2, cells: ['1', 'x, "y"\nz'] },
        { line: 5, cells: ['2', 'w'] },
      ],
    });
  });

  it('when no separator is given, then the header line says it: more semicolons than commas outside quotes is `;`', () => {
    expect(readCsvRecords('"a,b";c;d\n1,5;2;3\n')).toEqual({
      records: [
        { line: 1, cells: ['a,b', 'c', 'd'] },
        { line: 2, cells: ['1,5', '2', '3'] },
      ],
    });
  });

  it('when a file passes a limit or ends inside quotes, then the reader says where', () => {
    const limits = { maxRows: 1, maxColumns: 3, maxCellCharacters: 4, maxNameCharacters: 10 };
    expect(readCsvRecords('a,b\n12345,1\n', { limits })).toEqual({ error: 'Line 2, column 1: a cell holds more than 4 characters.' });
    expect(readCsvRecords('a\n1\n2\n', { limits })).toEqual({ error: 'The file has more than 1 rows: split it into smaller files.' });
    expect(readCsvRecords('a,"b\n', { separator: ',' })).toEqual({ error: 'Line 1: a quoted field is never closed (a " is missing).' });
  });
});
