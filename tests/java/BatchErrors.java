import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Runs pgjdbc executeBatch of a prepared INSERT (addBatch per row, default options) and
 *  prints, one "key: value" a line, what the application sees: the BatchUpdateException
 *  (message, SQLState, update counts) and the server error under it, whether the connection
 *  is still usable, then the table's rows and its sequence. Arguments: the URL, the table
 *  (qualified), then scenarios "AUTOCOMMIT:ROWS:FAILING" (FAILING the 1-based row given a
 *  duplicate key, 0 for none); each scenario starts from a new table holding one row. */
public class BatchErrors {
    public static void main(String[] args) throws Exception {
        String table = args[1];
        try (Connection conn = DriverManager.getConnection(args[0], "postgres", "")) {
            for (int i = 2; i < args.length; i++) {
                String[] scenario = args[i].split(":");
                System.out.println("scenario: " + args[i]);
                run(conn, table, Boolean.parseBoolean(scenario[0]), Integer.parseInt(scenario[1]),
                    Integer.parseInt(scenario[2]));
            }
        }
    }

    static void run(Connection conn, String table, boolean autocommit, int rows, int failing)
            throws SQLException {
        conn.setAutoCommit(true);
        try (Statement st = conn.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("CREATE TABLE " + table + " (id serial PRIMARY KEY, code int UNIQUE, "
                       + "qty bigint, note text, price float8, flag boolean, due date, "
                       + "at timestamp)");
            st.execute("INSERT INTO " + table + " (code) VALUES (0)");
        }
        conn.setAutoCommit(autocommit);
        String sql = "INSERT INTO " + table
            + " (code, qty, note, price, flag, due, at) VALUES (?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement insert = conn.prepareStatement(sql)) {
            for (int row = 1; row <= rows; row++) {
                insert.setInt(1, row == failing ? 0 : row);
                insert.setLong(2, row * 1000003L - 500000000L);
                if (row % 7 == 0) {
                    insert.setNull(3, Types.VARCHAR);
                } else {
                    insert.setString(3, "n" + row + (row % 5 == 0 ? " \u00e9'\\" : ""));
                }
                insert.setDouble(4, row % 13 == 0 ? -0.0 : row / 8.0);
                insert.setBoolean(5, row % 2 == 0);
                if (row % 17 == 0) {
                    insert.setNull(6, Types.DATE);
                } else {
                    insert.setDate(6, Date.valueOf(LocalDate.of(2024, 1, 1).plusDays(row)));
                }
                insert.setTimestamp(7, Timestamp.valueOf(
                    LocalDateTime.of(2024, 3, 9, 12, 0).plusMinutes(row * 7L).plusNanos(row * 1000L)));
                insert.addBatch();
            }
            int[] counts = insert.executeBatch();
            System.out.println("counts: " + summary(counts));
        } catch (BatchUpdateException e) {
            SQLException next = e.getNextException();
            String message = e.getMessage();
            if (next != null) {
                message = message.replace(next.getMessage(), "<error>");
            }
            System.out.println("exception: " + e.getClass().getSimpleName());
            System.out.println("message: " + message);
            System.out.println("sqlstate: " + e.getSQLState());
            System.out.println("counts: " + summary(e.getUpdateCounts()));
            if (next instanceof PSQLException) {
                ServerErrorMessage error = ((PSQLException) next).getServerErrorMessage();
                System.out.println("error sqlstate: " + error.getSQLState());
                System.out.println("error message: " + error.getMessage());
                System.out.println("error detail: " + error.getDetail());
            }
        }
        System.out.println("usable: " + count(conn, table));
        if (!autocommit) {
            conn.rollback();
            System.out.println("after rollback: " + count(conn, table));
            conn.setAutoCommit(true);
        }
        dump(conn, "SELECT * FROM " + table + " ORDER BY id");
        dump(conn, "SELECT last_value, is_called FROM " + table + "_id_seq");
    }

    /** The rows the session sees, or the SQLState of why it cannot look. */
    static String count(Connection conn, String table) {
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getString(1) + " rows";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    /** Update counts as runs: "3 [1 x 2, -3 x 1]". */
    static String summary(int[] counts) {
        List<String> runs = new ArrayList<>();
        int i = 0;
        while (i < counts.length) {
            int j = i;
            while (j < counts.length && counts[j] == counts[i]) {
                j++;
            }
            runs.add(counts[i] + " x " + (j - i));
            i = j;
        }
        return counts.length + " " + runs;
    }

    static void dump(Connection conn, String query) throws SQLException {
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(query)) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                StringBuilder line = new StringBuilder("row:");
                for (int column = 1; column <= md.getColumnCount(); column++) {
                    line.append(' ').append(rs.getString(column));
                }
                System.out.println(line);
            }
        }
    }
}
