"""The pg_catalog tables sqlext keeps, with PostgreSQL's column names and types.

Clients (psql's backslash commands, pgjdbc's DatabaseMetaData, Spark) query
these tables with ordinary SQL; the executor fills them from the catalog
whenever the schema changes. Only the columns clients are known to read are
kept, under their real names and types.
"""

from __future__ import annotations

from typing import Final

from catalog import types
from catalog.acl import PUBLIC_GRANTEE, AclItem
from catalog.roles import BOOTSTRAP_SUPERUSER
from catalog.schema import (
    INFORMATION_SCHEMA,
    PG_CATALOG,
    Column,
    Relation,
)

# name -> "column type, column type, ..." (types as pg_type names)
SYSTEM_TABLES: Final[dict[str, str]] = {
    "pg_namespace": "oid oid, nspname name, nspowner oid, nspacl _aclitem",
    "pg_class": (
        "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, "
        "relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4, "
        "relallvisible int4, reltoastrelid oid, relhasindex bool, relisshared bool, "
        "relpersistence char, relkind char, relnatts int2, relchecks int2, relhasrules bool, "
        "relhastriggers bool, relhassubclass bool, relrowsecurity bool, "
        "relforcerowsecurity bool, relispopulated bool, relreplident char, "
        "relispartition bool, relrewrite oid, relfrozenxid int8, relminmxid int8, "
        "relacl _aclitem, reloptions _text, relpartbound pg_node_tree"
    ),
    "pg_attribute": (
        "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, "
        "attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, "
        "attalign char, attstorage char, attcompression char, attnotnull bool, "
        "atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, "
        "attisdropped bool, attislocal bool, attinhcount int4, attcollation oid, "
        "attacl _aclitem, attoptions _text, attfdwoptions _text, attmissingval _text"
    ),
    "pg_type": (
        "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, "
        "typtype char, typcategory char, typispreferred bool, typisdefined bool, "
        "typdelim char, typrelid oid, typsubscript regproc, typelem oid, typarray oid, "
        "typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, "
        "typmodin regproc, typmodout regproc, typanalyze regproc, typalign char, "
        "typstorage char, typnotnull bool, typbasetype oid, typtypmod int4, typndims int4, "
        "typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl _aclitem"
    ),
    "pg_attrdef": "oid oid, adrelid oid, adnum int2, adbin pg_node_tree",
    "pg_index": (
        "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, "
        "indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, "
        "indimmediate bool, indisclustered bool, indisvalid bool, indcheckxmin bool, "
        "indisready bool, indislive bool, indisreplident bool, indkey int2vector, "
        "indcollation oidvector, indclass oidvector, indoption int2vector, "
        "indexprs pg_node_tree, indpred pg_node_tree"
    ),
    "pg_constraint": (
        "oid oid, conname name, connamespace oid, contype char, condeferrable bool, "
        "condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, "
        "conparentid oid, confrelid oid, confupdtype char, confdeltype char, "
        "confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, "
        "conkey _int2, confkey _int2, conbin pg_node_tree"
    ),
    "pg_proc": (
        "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, "
        "prorows float4, provariadic oid, prosupport regproc, prokind char, prosecdef bool, "
        "proleakproof bool, proisstrict bool, proretset bool, provolatile char, "
        "proparallel char, pronargs int2, pronargdefaults int2, prorettype oid, "
        "proargtypes oidvector, proallargtypes _oid, proargmodes _char, proargnames _text, "
        "prosrc text, probin text, proconfig _text, proacl _aclitem, protrftypes _oid"
    ),
    "pg_database": (
        "oid oid, datname name, datdba oid, encoding int4, datlocprovider char, "
        "datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid int8, "
        "datminmxid int8, dattablespace oid, datcollate text, datctype text, "
        "daticulocale text, datcollversion text, datacl _aclitem"
    ),
    "pg_roles": (
        "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, "
        "rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, "
        "rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, rolconfig _text, "
        "oid oid"
    ),
    "pg_authid": (
        "oid oid, rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, "
        "rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolbypassrls bool, "
        "rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz"
    ),
    "pg_user": (
        "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, "
        "usebypassrls bool, passwd text, valuntil timestamptz, useconfig _text"
    ),
    "pg_auth_members": "roleid oid, member oid, grantor oid, admin_option bool",
    "pg_am": "oid oid, amname name, amhandler regproc, amtype char",
    "pg_description": "objoid oid, classoid oid, objsubid int4, description text",
    "pg_inherits": "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool",
    "pg_policy": (
        "oid oid, polname name, polrelid oid, polcmd char, polpermissive bool, "
        "polroles _oid, polqual pg_node_tree, polwithcheck pg_node_tree"
    ),
    "pg_statistic_ext": (
        "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, "
        "stxstattarget int4, stxkeys int2vector, stxkind _char, stxexprs pg_node_tree"
    ),
    "pg_publication": (
        "oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, "
        "pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool"
    ),
    "pg_publication_rel": (
        "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector"
    ),
    "pg_publication_namespace": "oid oid, pnpubid oid, pnnspid oid",
    "pg_collation": (
        "oid oid, collname name, collnamespace oid, collowner oid, collprovider char, "
        "collisdeterministic bool, collencoding int4, collcollate text, collctype text, "
        "colliculocale text, collversion text"
    ),
    "pg_tablespace": "oid oid, spcname name, spcowner oid, spcacl _aclitem, spcoptions _text",
    "pg_depend": (
        "classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, "
        "refobjsubid int4, deptype char"
    ),
    "pg_trigger": (
        "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype int2, "
        "tgenabled char, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, "
        "tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2"
    ),
    "pg_sequence": (
        "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, "
        "seqmin int8, seqcache int8, seqcycle bool"
    ),
    "pg_extension": (
        "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, "
        "extversion text, extconfig _oid, extcondition _text"
    ),
    "pg_enum": "oid oid, enumtypid oid, enumsortorder float4, enumlabel name",
    "pg_language": (
        "oid oid, lanname name, lanowner oid, lanispl bool, lanpltrusted bool, "
        "lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl _aclitem"
    ),
    "pg_event_trigger": (
        "oid oid, evtname name, evtevent name, evtowner oid, evtfoid oid, evtenabled char, "
        "evttags _text"
    ),
    "pg_conversion": (
        "oid oid, conname name, connamespace oid, conowner oid, conforencoding int4, "
        "contoencoding int4, conproc regproc, condefault bool"
    ),
    "pg_largeobject_metadata": "oid oid, lomowner oid, lomacl _aclitem",
    "pg_foreign_data_wrapper": (
        "oid oid, fdwname name, fdwowner oid, fdwhandler oid, fdwvalidator oid, "
        "fdwacl _aclitem, fdwoptions _text"
    ),
    "pg_foreign_server": (
        "oid oid, srvname name, srvowner oid, srvfdw oid, srvtype text, srvversion text, "
        "srvacl _aclitem, srvoptions _text"
    ),
    "pg_db_role_setting": "setdatabase oid, setrole oid, setconfig _text",
    "pg_opclass": (
        "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, "
        "opcfamily oid, opcintype oid, opcdefault bool, opckeytype oid"
    ),
    "pg_opfamily": "oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid",
    "pg_rewrite": (
        "oid oid, rulename name, ev_class oid, ev_type char, ev_enabled char, "
        "is_instead bool, ev_qual pg_node_tree, ev_action pg_node_tree"
    ),
    "pg_range": (
        "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, "
        "rngcanonical regproc, rngsubdiff regproc"
    ),
    "pg_settings": (
        "name text, setting text, unit text, category text, short_desc text, "
        "extra_desc text, context text, vartype text, source text, min_val text, "
        "max_val text, enumvals _text, boot_val text, reset_val text, sourcefile text, "
        "sourceline int4, pending_restart bool"
    ),
    "pg_tables": (
        "schemaname name, tablename name, tableowner name, tablespace name, "
        "hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool"
    ),
    "pg_views": "schemaname name, viewname name, viewowner name, definition text",
    "pg_matviews": (
        "schemaname name, matviewname name, matviewowner name, tablespace name, "
        "hasindexes bool, ispopulated bool, definition text"
    ),
    "pg_indexes": (
        "schemaname name, tablename name, indexname name, tablespace name, indexdef text"
    ),
    "pg_stat_activity": (
        "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, usename name, "
        "application_name text, client_addr inet, client_hostname text, client_port int4, "
        "backend_start timestamptz, xact_start timestamptz, query_start timestamptz, "
        "state_change timestamptz, wait_event_type text, wait_event text, state text, "
        "backend_xid xid, backend_xmin xid, query_id int8, query text, backend_type text"
    ),
    # What pg_dump reads besides the above: the objects of kinds sqlext has none of
    # (operators, casts, text search, foreign tables, subscriptions...) and the
    # privileges initdb gave the system objects (pg_init_privs).
    "pg_init_privs": "objoid oid, classoid oid, objsubid int4, privtype char, initprivs _aclitem",
    "pg_operator": (
        "oid oid, oprname name, oprnamespace oid, oprowner oid, oprkind char, "
        "oprcanmerge bool, oprcanhash bool, oprleft oid, oprright oid, oprresult oid, "
        "oprcom oid, oprnegate oid, oprcode regproc, oprrest regproc, oprjoin regproc"
    ),
    "pg_amop": (
        "oid oid, amopfamily oid, amoplefttype oid, amoprighttype oid, amopstrategy int2, "
        "amoppurpose char, amopopr oid, amopmethod oid, amopsortfamily oid"
    ),
    "pg_amproc": (
        "oid oid, amprocfamily oid, amproclefttype oid, amprocrighttype oid, "
        "amprocnum int2, amproc regproc"
    ),
    "pg_cast": (
        "oid oid, castsource oid, casttarget oid, castfunc oid, castcontext char, "
        "castmethod char"
    ),
    "pg_transform": "oid oid, trftype oid, trflang oid, trffromsql regproc, trftosql regproc",
    "pg_ts_parser": (
        "oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, "
        "prsend regproc, prsheadline regproc, prslextype regproc"
    ),
    "pg_ts_template": (
        "oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc"
    ),
    "pg_ts_dict": (
        "oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, "
        "dictinitoption text"
    ),
    "pg_ts_config": "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid",
    "pg_default_acl": (
        "oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype char, defaclacl _aclitem"
    ),
    "pg_partitioned_table": (
        "partrelid oid, partstrat char, partnatts int2, partdefid oid, partattrs int2vector, "
        "partclass oidvector, partcollation oidvector, partexprs pg_node_tree"
    ),
    "pg_foreign_table": "ftrelid oid, ftserver oid, ftoptions _text",
    "pg_subscription": (
        "oid oid, subdbid oid, subname name, subowner oid, "
        "subenabled bool, subbinary bool, substream bool, subtwophasestate char, "
        "subdisableonerr bool, subconninfo text, subslotname name, subsynccommit text, "
        "subpublications _text"
    ),
    "pg_seclabel": "objoid oid, classoid oid, objsubid int4, provider text, label text",
    "pg_shseclabel": "objoid oid, classoid oid, provider text, label text",
    "pg_seclabels": (
        "objoid oid, classoid oid, objsubid int4, objtype text, objnamespace oid, "
        "objname text, provider text, label text"
    ),
    "sqlext_procedures": (
        "schema name, name name, language text, state text, waiting_batches int8, "
        "batches_run int8, batches_failed int8, stopped_at_batch int8, stopped_on_stream name, "
        "error_code text, error text, running bool, avg_ms float8, p99_ms float8, "
        "last_run timestamptz"
    ),
    "sqlext_streams": (
        "schema name, name name, batch_column name, last_batch int8, tuples int8, "
        "skipped_batches int8, consumers text, pending_batches int8, pending_tuples int8, "
        "oldest_batch int8, readers int8"
    ),
    "sqlext_stream_readers": (
        "schema name, stream name, reader text, after_batch int8, held_batches int8, "
        "oldest_held int8"
    ),
    "sqlext_checkpoints": (
        "lsn int8, finished timestamptz, stall_ms float8, seconds float8, size_bytes int8, "
        "error text"
    ),
    "sqlext_dataflow": (
        "from_kind text, from_schema name, from_name name, to_kind text, to_schema name, "
        "to_name name, edge_kind text, via_trigger name"
    ),
    "sqlext_windows": (
        "schema name, name name, stream name, kind text, size text, slide text, "
        "range_column name, partition_column name, visible_tuples int8, staged_tuples int8, "
        "slides int8"
    ),
    "sqlext_triggers": (
        "schema name, name name, kind text, relation name, relation_kind text, "
        "procedure name, fired int8"
    ),
    "sqlext_log": (
        "durability text, commit_timeout_ms int4, recovery text, last_lsn int8, "
        "durable_lsn int8, last_fsync timestamptz, fsyncs int8, avg_group float8, "
        "max_group int8, file text, file_bytes int8"
    ),
    "sqlext_snapshots": "file text, lsn int8, size_bytes int8, written timestamptz, writing bool",
}

LIVE_TABLES: Final = frozenset({
    "pg_stat_activity", "sqlext_procedures", "sqlext_streams", "sqlext_stream_readers",
    "sqlext_windows",
    "sqlext_triggers", "sqlext_log", "sqlext_snapshots", "sqlext_checkpoints",
    "sqlext_dataflow"})
"""System views of the running server, filled when a query reads them."""


# PostgreSQL's own OIDs for its catalog tables ('pg_class'::regclass = 1259).
DEFAULT_COLLATION: Final = 100
C_COLLATION: Final = 950
COLLATIONS: Final = {DEFAULT_COLLATION: ("default", "d", None), C_COLLATION: ("C", "c", "C")}
"""pg_collation: OID -> (name, provider, locale); all in pg_catalog."""

KNOWN_OIDS: Final[dict[str, int]] = {
    "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259,
    "pg_authid": 1260, "pg_auth_members": 1261, "pg_database": 1262, "pg_tablespace": 1213,
    "pg_am": 2601, "pg_attrdef": 2604, "pg_constraint": 2606, "pg_depend": 2608,
    "pg_description": 2609, "pg_index": 2610, "pg_inherits": 2611, "pg_namespace": 2615,
    "pg_trigger": 2620, "pg_sequence": 2224, "pg_extension": 3079, "pg_policy": 3256,
    "pg_statistic_ext": 3381, "pg_collation": 3456, "pg_enum": 3501, "pg_range": 3541,
    "pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
    "pg_language": 2612, "pg_event_trigger": 3466, "pg_conversion": 2607,
    "pg_largeobject_metadata": 2995, "pg_foreign_data_wrapper": 2328,
    "pg_foreign_server": 1417, "pg_db_role_setting": 2964, "pg_rewrite": 2618,
    "pg_opclass": 2616, "pg_opfamily": 2753, "pg_init_privs": 3394, "pg_operator": 2617,
    "pg_amop": 2602, "pg_amproc": 2603, "pg_cast": 2605, "pg_transform": 3576,
    "pg_ts_parser": 3601, "pg_ts_template": 3764, "pg_ts_dict": 3600, "pg_ts_config": 3602,
    "pg_default_acl": 826, "pg_partitioned_table": 3350, "pg_foreign_table": 3118,
    "pg_subscription": 6100, "pg_seclabel": 3596, "pg_shseclabel": 3592,
}
_FIRST_VIEW_OID: Final = 12000

def columns_of(spec: str) -> list[tuple[str, str]]:
    """(column name, type name) of each column a table's spec declares, in order."""
    return [(name, type_name) for name, type_name in (part.split() for part in spec.split(","))]


def _columns(spec: str) -> tuple[Column, ...]:
    return tuple(Column(name, types.BY_NAME[type_name].oid)
                 for name, type_name in columns_of(spec))


# information_schema, with its domains shown as their base types
# (sql_identifier = name, character_data = varchar, cardinal_number = int4).
INFORMATION_SCHEMA_TABLES: Final[dict[str, str]] = {
    "schemata": "catalog_name name, schema_name name, schema_owner name",
    "tables": (
        "table_catalog name, table_schema name, table_name name, table_type varchar, "
        "is_insertable_into varchar, is_typed varchar"
    ),
    "columns": (
        "table_catalog name, table_schema name, table_name name, column_name name, "
        "ordinal_position int4, column_default varchar, is_nullable varchar, "
        "data_type varchar, character_maximum_length int4, numeric_precision int4, "
        "numeric_scale int4, datetime_precision int4, udt_catalog name, udt_schema name, "
        "udt_name name, is_identity varchar, is_generated varchar, is_updatable varchar"
    ),
    "views": (
        "table_catalog name, table_schema name, table_name name, view_definition varchar, "
        "is_updatable varchar"
    ),
    "table_constraints": (
        "constraint_catalog name, constraint_schema name, constraint_name name, "
        "table_catalog name, table_schema name, table_name name, constraint_type varchar, "
        "is_deferrable varchar, initially_deferred varchar"
    ),
    "key_column_usage": (
        "constraint_catalog name, constraint_schema name, constraint_name name, "
        "table_catalog name, table_schema name, table_name name, column_name name, "
        "ordinal_position int4"
    ),
    "sequences": (
        "sequence_catalog name, sequence_schema name, sequence_name name, data_type varchar, "
        "start_value varchar, increment varchar"
    ),
    "table_privileges": (
        "grantor name, grantee name, table_catalog name, table_schema name, table_name name, "
        "privilege_type varchar, is_grantable varchar, with_hierarchy varchar"
    ),
    "column_privileges": (
        "grantor name, grantee name, table_catalog name, table_schema name, table_name name, "
        "column_name name, privilege_type varchar, is_grantable varchar"
    ),
}
_FIRST_INFORMATION_SCHEMA_OID: Final = 13100


SYSTEM_VIEWS: Final = frozenset({"pg_roles", "pg_user", "pg_settings", "pg_tables",
                                 "pg_views", "pg_matviews", "pg_indexes", "pg_seclabels",
                                 *LIVE_TABLES})
"""The pg_catalog relations PostgreSQL defines as views (relkind 'v'), like
every relation of information_schema."""


SUPERUSER_ONLY: Final = frozenset({"pg_authid"})
"""System tables only superusers may read, as in PostgreSQL (pg_authid holds
the password verifiers)."""
_READABLE: Final = (AclItem(PUBLIC_GRANTEE, BOOTSTRAP_SUPERUSER, "r"),)


def system_relations() -> list[Relation]:
    """Relations for the tables above, in schemas pg_catalog and
    information_schema."""
    return [
        Relation(KNOWN_OIDS.get(name, _FIRST_VIEW_OID + number), PG_CATALOG, name,
                 "v" if name in SYSTEM_VIEWS else "r", name, _columns(spec),
                 acl=() if name in SUPERUSER_ONLY else _READABLE)
        for number, (name, spec) in enumerate(SYSTEM_TABLES.items())
    ] + [
        Relation(_FIRST_INFORMATION_SCHEMA_OID + number, INFORMATION_SCHEMA, name, "v", name,
                 _columns(spec), acl=_READABLE)
        for number, (name, spec) in enumerate(INFORMATION_SCHEMA_TABLES.items())
    ]
