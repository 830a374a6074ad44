import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import org.postgresql.PGResultSetMetaData;

/** Prints what a JDBC database tool reads through pgjdbc's DatabaseMetaData and
 *  ResultSetMetaData for one schema: one JSON object a line, {"call": ..., then either
 *  "value" (a scalar), "columns" + "rows" (a result set, every value as getString()
 *  returns it) or "error" (the SQLSTATE and message)}. Arguments: the URL, the schema
 *  (a plain name), then the queries whose ResultSetMetaData is printed. */
public class DumpMetadata {
    static final int[] RESULT_SET_TYPES = {
        ResultSet.TYPE_FORWARD_ONLY, ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.TYPE_SCROLL_SENSITIVE};
    static final String[] TABLE_TYPES = {"TABLE", "VIEW", "SEQUENCE", "INDEX", "SYSTEM TABLE",
        "SYSTEM VIEW", "MATERIALIZED VIEW", "TYPE"};

    interface Call {
        Object run() throws SQLException;
    }

    public static void main(String[] args) throws Exception {
        String schema = args[1];
        try (Connection conn = DriverManager.getConnection(args[0], "postgres", "")) {
            DatabaseMetaData md = conn.getMetaData();
            scalars(md);
            for (int type : RESULT_SET_TYPES) {
                emit("supportsResultSetType(" + type + ")", () -> md.supportsResultSetType(type));
                emit("ownUpdatesAreVisible(" + type + ")", () -> md.ownUpdatesAreVisible(type));
            }
            for (int level : new int[] {0, 1, 2, 4, 8}) {
                emit("supportsTransactionIsolationLevel(" + level + ")",
                     () -> md.supportsTransactionIsolationLevel(level));
            }
            emit("getCatalogs", md::getCatalogs);
            emit("getTableTypes", md::getTableTypes);
            emit("getClientInfoProperties", md::getClientInfoProperties);
            emit("getSchemas", md::getSchemas);
            emit("getSchemas(pattern)", () -> md.getSchemas(null, schema.substring(0, 4) + "%"));
            emit("getTables(all)", () -> md.getTables(null, schema, "%", null));
            for (String type : TABLE_TYPES) {
                emit("getTables(" + type + ")", () -> md.getTables(null, schema, "%", new String[] {type}));
            }
            emit("getTables(TABLE,VIEW)", () -> md.getTables(null, schema, "p%", new String[] {"TABLE", "VIEW"}));
            emit("getTables(SYSTEM TABLE pg_catalog)",
                 () -> md.getTables(null, "pg_catalog", "pg_%", new String[] {"SYSTEM TABLE"}));
            emit("getTables(SYSTEM VIEW pg_catalog)",
                 () -> md.getTables(null, "pg_catalog", "pg_%", new String[] {"SYSTEM VIEW"}));
            emit("getColumns", () -> md.getColumns(null, schema, "%", "%"));
            emit("getColumns(pattern)", () -> md.getColumns(null, schema.substring(0, 4) + "%", "par%", "%e"));
            emit("getTypeInfo", md::getTypeInfo);
            emit("getUDTs", () -> md.getUDTs(null, schema, "%", null));
            emit("getFunctions", () -> md.getFunctions(null, schema, "%"));
            emit("getFunctionColumns", () -> md.getFunctionColumns(null, schema, "%", "%"));
            emit("getProcedures", () -> md.getProcedures(null, schema, "%"));
            emit("getProcedureColumns", () -> md.getProcedureColumns(null, schema, "%", "%"));
            emit("getTablePrivileges", () -> md.getTablePrivileges(null, schema, "%"));
            emit("getCrossReference", () -> md.getCrossReference(null, schema, "pair", null, schema, "ref"));
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, schema, "%", new String[] {"TABLE", "VIEW"})) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_NAME"));
                }
            }
            for (String table : tables) {
                emit("getPrimaryKeys " + table, () -> md.getPrimaryKeys(null, schema, table));
                emit("getImportedKeys " + table, () -> md.getImportedKeys(null, schema, table));
                emit("getExportedKeys " + table, () -> md.getExportedKeys(null, schema, table));
                emit("getIndexInfo(unique) " + table, () -> md.getIndexInfo(null, schema, table, true, false));
                emit("getIndexInfo " + table, () -> md.getIndexInfo(null, schema, table, false, true));
                emit("getBestRowIdentifier " + table,
                     () -> md.getBestRowIdentifier(null, schema, table, DatabaseMetaData.bestRowSession, true));
                emit("getVersionColumns " + table, () -> md.getVersionColumns(null, schema, table));
                emit("getColumnPrivileges " + table, () -> md.getColumnPrivileges(null, schema, table, "%"));
            }
            for (int i = 2; i < args.length; i++) {
                String query = args[i];
                emit("ResultSetMetaData " + query, () -> queryMetadata(conn, query));
            }
            // defaults name sequences qualified only where the search path would not find them
            try (Statement st = conn.createStatement()) {
                st.execute("SET search_path = " + schema + ", public");
            }
            emit("getColumns(on search path)", () -> md.getColumns(null, schema, "%", "%"));
        }
    }

    /** Every DatabaseMetaData method without arguments that returns a plain value. */
    static void scalars(DatabaseMetaData md) {
        Method[] methods = DatabaseMetaData.class.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            Class<?> result = method.getReturnType();
            boolean plain = result.isPrimitive() || result == String.class;
            if (method.getParameterCount() == 0 && plain && result != void.class) {
                emit(method.getName(), () -> {
                    try {
                        return method.invoke(md);
                    } catch (InvocationTargetException e) {
                        if (e.getCause() instanceof SQLException) {
                            throw (SQLException) e.getCause();
                        }
                        throw new IllegalStateException(e.getCause());
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }
    }

    /** What a tool reads of a query's columns (pgjdbc asks pg_attribute for some of it). */
    static Rows queryMetadata(Connection conn, String query) throws SQLException {
        List<String> names = Arrays.asList("label", "name", "type", "typeName", "precision", "scale",
            "nullable", "autoIncrement", "tableName", "schemaName", "catalogName", "displaySize",
            "signed", "caseSensitive", "currency", "searchable", "readOnly", "writable",
            "className", "baseColumnName", "baseTableName", "baseSchemaName");
        List<List<String>> rows = new ArrayList<>();
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(query)) {
            ResultSetMetaData m = rs.getMetaData();
            PGResultSetMetaData pg = m.unwrap(PGResultSetMetaData.class);
            for (int i = 1; i <= m.getColumnCount(); i++) {
                rows.add(Arrays.asList(m.getColumnLabel(i), m.getColumnName(i), str(m.getColumnType(i)),
                    m.getColumnTypeName(i), str(m.getPrecision(i)), str(m.getScale(i)),
                    str(m.isNullable(i)), str(m.isAutoIncrement(i)), m.getTableName(i), m.getSchemaName(i),
                    m.getCatalogName(i), str(m.getColumnDisplaySize(i)), str(m.isSigned(i)),
                    str(m.isCaseSensitive(i)), str(m.isCurrency(i)), str(m.isSearchable(i)),
                    str(m.isReadOnly(i)), str(m.isWritable(i)), m.getColumnClassName(i),
                    pg.getBaseColumnName(i), pg.getBaseTableName(i), pg.getBaseSchemaName(i)));
            }
        }
        return new Rows(names, rows);
    }

    /** A table made here, printed as a result set is. */
    static final class Rows {
        final List<String> columns;
        final List<List<String>> rows;

        Rows(List<String> columns, List<List<String>> rows) {
            this.columns = columns;
            this.rows = rows;
        }
    }

    static String str(Object value) {
        return String.valueOf(value);
    }

    static void emit(String call, Call body) {
        StringBuilder out = new StringBuilder("{\"call\": ").append(json(call));
        try {
            Object value = body.run();
            if (value instanceof ResultSet) {
                try (ResultSet rs = (ResultSet) value) {
                    appendResultSet(out, rs);
                }
            } else if (value instanceof Rows) {
                appendRows(out, ((Rows) value).columns, ((Rows) value).rows);
            } else {
                out.append(", \"value\": ").append(json(String.valueOf(value)));
            }
        } catch (SQLException e) {
            out.append(", \"error\": ").append(json(e.getSQLState() + " " + e.getMessage()));
        }
        System.out.println(out.append('}'));
    }

    static void appendResultSet(StringBuilder out, ResultSet rs) throws SQLException {
        ResultSetMetaData m = rs.getMetaData();
        List<String> columns = new ArrayList<>();
        for (int i = 1; i <= m.getColumnCount(); i++) {
            columns.add(m.getColumnLabel(i) + ":" + m.getColumnTypeName(i));
        }
        List<List<String>> rows = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= m.getColumnCount(); i++) {
                row.add(rs.getString(i));
            }
            rows.add(row);
        }
        appendRows(out, columns, rows);
    }

    static void appendRows(StringBuilder out, List<String> columns, List<List<String>> rows) {
        out.append(", \"columns\": ").append(jsonList(columns)).append(", \"rows\": [");
        for (int i = 0; i < rows.size(); i++) {
            out.append(i > 0 ? ", " : "").append(jsonList(rows.get(i)));
        }
        out.append(']');
    }

    static String jsonList(List<String> values) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            out.append(i > 0 ? ", " : "").append(json(values.get(i)));
        }
        return out.append(']').toString();
    }

    static String json(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
