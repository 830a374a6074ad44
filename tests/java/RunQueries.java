import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Runs each line of a file as a query and prints what pgjdbc reads back:
 *  every value as getString() returns it, or the error's SQLSTATE. */
public class RunQueries {
    public static void main(String[] args) throws Exception {
        List<String> queries = Files.readAllLines(Paths.get(args[1]));
        try (Connection conn = DriverManager.getConnection(args[0], "postgres", "")) {
            for (String sql : queries) {
                StringBuilder out = new StringBuilder("> ").append(sql).append('\n');
                try (Statement statement = conn.createStatement();
                     ResultSet rs = statement.executeQuery(sql)) {
                    ResultSetMetaData meta = rs.getMetaData();
                    while (rs.next()) {
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            out.append(i > 1 ? "|" : "").append(rs.getString(i));
                        }
                        out.append('\n');
                    }
                } catch (SQLException e) {
                    out.append("ERROR ").append(e.getSQLState()).append('\n');
                }
                System.out.print(out);
            }
        }
    }
}
