package org.smsgw.agent.core;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * SqlDb over SQLite through JDBC: the outbox's SQL runs here as it runs on the phone, with the
 * same durability setting (synchronous=FULL) as the app's SQLiteOpenHelper.
 */
public final class JdbcSqlDb implements SqlDb, AutoCloseable {
    private final Connection connection;
    private int depth;

    public JdbcSqlDb(String file) {
        try {
            connection = DriverManager.getConnection("jdbc:sqlite:" + file);
            Statement s = connection.createStatement();
            s.execute("PRAGMA synchronous=FULL");
            s.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void execute(String sql, Object... args) {
        try {
            PreparedStatement s = connection.prepareStatement(sql);
            try {
                for (int i = 0; i < args.length; i++) s.setObject(i + 1, args[i]);
                s.execute();
            } finally {
                s.close();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized List<Object[]> query(String sql, String... args) {
        try {
            PreparedStatement s = connection.prepareStatement(sql);
            try {
                for (int i = 0; i < args.length; i++) s.setString(i + 1, args[i]);
                ResultSet rs = s.executeQuery();
                int n = rs.getMetaData().getColumnCount();
                List<Object[]> rows = new ArrayList<Object[]>();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        Object v = rs.getObject(i + 1);
                        // Android's cursor gives every integer as a long: the same here.
                        row[i] = v instanceof Number ? Long.valueOf(((Number) v).longValue()) : v;
                    }
                    rows.add(row);
                }
                return rows;
            } finally {
                s.close();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void transaction(Runnable work) {
        try {
            if (depth++ == 0) connection.setAutoCommit(false);
            boolean ok = false;
            try {
                work.run();
                ok = true;
            } finally {
                if (--depth == 0) {
                    if (ok) connection.commit(); else connection.rollback();
                    connection.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
