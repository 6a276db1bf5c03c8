package org.smsgw.agent.app;

import android.content.Context;
import android.database.Cursor;
import android.database.sqlite.SQLiteDatabase;
import android.database.sqlite.SQLiteOpenHelper;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.SqlDb;
import org.smsgw.agent.core.SqlOutboxStore;

/**
 * The outbox's SQLite database, one per paired device ({@code outbox-<device_id>.db}), so that
 * pairing as another device never sends or reports the first one's SMS. The statements are
 * the core's (SqlOutboxStore), tested on the JVM against SQLite through JDBC.
 */
final class AndroidSqlDb extends SQLiteOpenHelper implements SqlDb {
    private static final int VERSION = SqlOutboxStore.SCHEMA_VERSION;

    AndroidSqlDb(Context context, String deviceId) {
        super(context, "outbox-" + deviceId.replaceAll("[^A-Za-z0-9_]", "_") + ".db", null, VERSION);
    }

    @Override
    public void onConfigure(SQLiteDatabase db) {
        // An ack promises the SMS is on disk: every commit waits for the file system (the
        // rollback journal, not WAL, whose NORMAL default may lose the last commits on power loss).
        db.execSQL("PRAGMA synchronous=FULL");
    }

    @Override
    public void onCreate(SQLiteDatabase db) {
        for (String statement : SqlOutboxStore.SCHEMA) db.execSQL(statement);
    }

    @Override
    public void onUpgrade(SQLiteDatabase db, int oldVersion, int newVersion) {
        // SQLiteOpenHelper runs this in a transaction: an upgrade cut short leaves the old version.
        for (int v = oldVersion; v < newVersion; v++) {
            for (String statement : SqlOutboxStore.UPGRADES[v - 1]) db.execSQL(statement);
        }
    }

    @Override
    public void execute(String sql, Object... args) {
        getWritableDatabase().execSQL(sql, args);
    }

    @Override
    public List<Object[]> query(String sql, String... args) {
        Cursor cursor = getReadableDatabase().rawQuery(sql, args);
        try {
            List<Object[]> rows = new ArrayList<Object[]>();
            int n = cursor.getColumnCount();
            while (cursor.moveToNext()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    switch (cursor.getType(i)) {
                        case Cursor.FIELD_TYPE_NULL:
                            row[i] = null;
                            break;
                        case Cursor.FIELD_TYPE_INTEGER:
                            row[i] = Long.valueOf(cursor.getLong(i));
                            break;
                        default:
                            row[i] = cursor.getString(i);
                            break;
                    }
                }
                rows.add(row);
            }
            return rows;
        } finally {
            cursor.close();
        }
    }

    @Override
    public void transaction(Runnable work) {
        SQLiteDatabase db = getWritableDatabase();
        db.beginTransaction();
        try {
            work.run();
            db.setTransactionSuccessful();
        } finally {
            db.endTransaction();
        }
    }
}
