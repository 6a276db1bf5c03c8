package org.smsgw.agent.core;

import java.util.List;

/**
 * The little of SQLite the outbox needs, so that its SQL runs unchanged on Android's
 * SQLiteDatabase and, in the JVM tests, on SQLite through JDBC. Values are Long, String or null.
 */
public interface SqlDb {
    void execute(String sql, Object... args);

    /** Rows of the query; each column as Long, String or null. */
    List<Object[]> query(String sql, String... args);

    /** Runs {@code work} in one transaction, rolled back when it throws. */
    void transaction(Runnable work);
}
