package io.sluice.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.ClientOptions;
import io.sluice.connect.client.ConnectRestClient;
import io.sluice.connect.testing.ConnectClient;
import io.sluice.kafka.testing.MariaDbServer;
import io.sluice.connect.testing.Pipeline;
import io.sluice.connect.testing.TestWorkers;
import io.sluice.kafka.testing.SharedKafka;
import io.sluice.registry.SchemaRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.storage.Converter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PostgreSQL source whose captured tables hold columns the pipeline cannot carry faithfully is refused before data
 * flows, through Connect's own REST API (validate, create, update), naming each column; excluding them or accepting
 * the loss lets it through; a database the check cannot reach is left to Debezium's own validation.
 */
class ColumnCheckTest {
  private static final String POSTGRES = "io.debezium.connector.postgresql.PostgresConnector";
  private static final String VALIDATE = "/connector-plugins/" + POSTGRES + "/config/validate";
  @TempDir static Path dir;
  private static ConnectRuntime worker;
  private static ConnectClient rest;
  private static Pipeline pipeline;

  @BeforeAll
  static void start() {
    worker = TestWorkers.worker(SharedKafka.unique("columns"), dir).start();
    rest = new ConnectClient(worker.restUrl());
    pipeline = new Pipeline(SharedKafka.unique("cols"));
    pipeline.execute(pipeline.sourceDb, "CREATE TYPE public.price AS (amount numeric(12,2), currency char(3))");
    pipeline.execute(pipeline.sourceDb, "CREATE DOMAIN public.local_time AS timetz");
    pipeline.execute(pipeline.sourceDb, "CREATE TABLE public.events (id int PRIMARY KEY, at_local timetz, "
        + "cost public.price, note text, happened timestamptz, tags text[])");
    // The remedies the refusal proposes are valid DDL, and what they add is carried.
    pipeline.execute(pipeline.sourceDb, "ALTER TABLE public.events "
        + "ADD COLUMN at_local_text text GENERATED ALWAYS AS (at_local::text) STORED, "
        + "ADD COLUMN cost_amount numeric(12,2) GENERATED ALWAYS AS ((cost).amount) STORED");
    // Types beside them: a domain and an array over timetz (the array is carried as text), a type Debezium does not
    // know; and a table not captured.
    pipeline.execute(pipeline.sourceDb, "CREATE TABLE public.shifts (id int PRIMARY KEY, starts public.local_time, "
        + "breaks timetz[], grid int[][], lsn pg_lsn, hours int4range, mood_money money)");
    pipeline.execute(pipeline.sourceDb, "CREATE TABLE public.timesheet (id int PRIMARY KEY, at timetz)");
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
  }

  private static Map<String, String> source(String slot, String tables, Map<String, String> extra) {
    Map<String, String> c = new LinkedHashMap<>(pipeline.sourceConfig(slot, Map.of("table.include.list", tables)));
    c.putAll(extra);
    return c;
  }

  /** Every error of a validate answer, by key. */
  private static Map<String, List<String>> errors(JsonNode verdict) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (JsonNode c : verdict.path("configs")) {
      for (JsonNode e : c.path("value").path("errors")) {
        out.computeIfAbsent(c.path("value").path("name").asText(), k -> new ArrayList<>()).add(e.asText());
      }
    }
    return out;
  }

  private static JsonNode validate(String name, Map<String, String> config) {
    Map<String, String> named = new LinkedHashMap<>(config);
    named.put("name", name);
    ConnectClient.Reply r = rest.call("PUT", VALIDATE, named);
    assertEquals(200, r.status(), r.body());
    return r.json();
  }

  @Test
  void aTimetzAndACompositeColumnAreNamedBeforeDataFlowsUntilExcludedOrAccepted() {
    String name = pipeline.name + "-events";
    Map<String, String> config = source(pipeline.name + "_events", "public\\.events", Map.of());

    JsonNode verdict = validate(name, config);
    List<String> found = errors(verdict).getOrDefault("column.exclude.list", List.of());
    assertEquals(2, verdict.path("error_count").asInt(), verdict.toString());
    assertEquals(2, found.size(), found.toString());
    String timetz = found.get(0);
    String composite = found.get(1);
    assertTrue(timetz.contains("Column at_local of table public.events (time with time zone)"), timetz);
    assertTrue(timetz.contains("07:04:56+00"), timetz);
    assertTrue(timetz.contains("public\\.events\\.at_local to column.exclude.list"), timetz);
    assertTrue(timetz.contains("sluice.columns.accept.loss"), timetz);
    assertTrue(composite.contains("Column cost of table public.events (price)"), composite);
    assertTrue(composite.contains("composite"), composite);
    assertTrue(timetz.contains("at_local_text text GENERATED ALWAYS AS (at_local::text) STORED"), timetz);

    // Created the same way: refused in Connect's shape, nothing created, no secret left behind.
    ConnectClient.Reply refused = rest.create(name, config);
    assertEquals(400, refused.status(), refused.body());
    assertEquals(400, refused.json().path("error_code").asInt());
    String message = refused.json().path("message").asText();
    assertTrue(message.startsWith("Connector configuration is invalid and contains the following 2 error(s)"),
        message);
    assertTrue(message.contains("at_local") && message.contains("cost"), message);
    assertFalse(message.contains(Pipeline.CDC_PASSWORD), message);
    assertEquals(404, rest.call("GET", "/connectors/" + name, null).status());

    // Excluded: accepted, and created.
    Map<String, String> excluded = new LinkedHashMap<>(config);
    excluded.put("column.exclude.list", "public\\.events\\.at_local, public\\.events\\.cost");
    assertEquals(0, validate(name, excluded).path("error_count").asInt());
    assertEquals(201, rest.create(name, excluded).status());
    assertEquals(204, rest.call("DELETE", "/connectors/" + name, null).status());

    // Accepted with Sluice's key: created; an update that takes the acceptance back is refused, its stored password
    // (now a reference) resolved for the check.
    String accepting = name + "-accepts";
    Map<String, String> accepted = new LinkedHashMap<>(source(pipeline.name + "_accepts", "public\\.events",
        Map.of("sluice.columns.accept.loss", "public\\.events\\.(at_local|cost)")));
    assertEquals(0, validate(accepting, accepted).path("error_count").asInt());
    ConnectClient.Reply created = rest.create(accepting, accepted);
    assertEquals(201, created.status(), created.body());
    Map<String, Object> takeBack = new LinkedHashMap<>();
    takeBack.put("sluice.columns.accept.loss", "public\\.events\\.cost");
    ConnectClient.Reply patched = rest.call("PATCH", "/connectors/" + accepting + "/config", takeBack);
    assertEquals(400, patched.status(), patched.body());
    String patchMessage = patched.json().path("message").asText();
    assertTrue(patchMessage.contains("1 error(s)") && patchMessage.contains("at_local"), patchMessage);
    assertEquals("public\\.events\\.(at_local|cost)", rest.call("GET", "/connectors/" + accepting + "/config", null)
        .json().path("sluice.columns.accept.loss").asText(), "a refused update changes nothing");
    Map<String, String> replaced = new LinkedHashMap<>(accepted);
    replaced.remove("sluice.columns.accept.loss");
    replaced.put("database.password", "${sluice:" + accepting + ":database.password}");
    ConnectClient.Reply put = rest.call("PUT", "/connectors/" + accepting + "/config", replaced);
    assertEquals(400, put.status(), put.body());
    assertTrue(put.json().path("message").asText().contains("2 error(s)"), put.body());
    assertEquals(204, rest.call("DELETE", "/connectors/" + accepting, null).status());
  }

  @Test
  void domainsArraysAndUnknownTypesAreJudgedByWhatTheyCarry() {
    Map<String, String> config = source(pipeline.name + "_shifts", "public\\.shifts,public\\.time.*",
        Map.of());
    List<String> found = errors(validate(pipeline.name + "-shifts", config))
        .getOrDefault("column.exclude.list", List.of());
    // An array of timetz travels in PostgreSQL's text form, offsets and all (Sluice's converter): not refused.
    // An array declared with two dimensions is read with one.
    assertEquals(4, found.size(), String.join("\n", found));
    assertTrue(found.get(0).contains("Column starts of table public.shifts (local_time, a domain over time with "
        + "time zone)"), found.get(0));
    assertTrue(found.get(1).contains("Column grid of table public.shifts (integer[])")
        && found.get(1).contains("one dimension"), found.get(1));
    assertTrue(found.get(2).contains("Column lsn of table public.shifts (pg_lsn)"), found.get(2));
    assertTrue(found.get(2).contains("does not know the type"), found.get(2));
    assertTrue(found.get(3).contains("Column at of table public.timesheet (time with time zone)"),
        found.get(3));

    // Excluded by table, not by column: only what is captured counts.
    config.put("table.include.list", "public\\.shifts");
    config.put("column.exclude.list", "public\\.shifts\\.(starts|breaks|grid)");
    found = errors(validate(pipeline.name + "-shifts", config)).getOrDefault("column.exclude.list", List.of());
    assertEquals(1, found.size(), String.join("\n", found));
    assertTrue(found.get(0).contains("lsn"), found.get(0));

    // A wrong acceptance list is an error on Sluice's key.
    config.put("sluice.columns.accept.loss", "public\\.shifts\\.(lsn");
    Map<String, List<String>> errors = errors(validate(pipeline.name + "-shifts", config));
    assertEquals(1, errors.getOrDefault("sluice.columns.accept.loss", List.of()).size(), errors.toString());
    assertFalse(errors.containsKey("column.exclude.list"), errors.toString());
  }

  /**
   * {@code publication.autocreate.mode=filtered} is warned about, never refused: Debezium then reads
   * {@code pg_publication_tables} on its replication connection at every task start, which can crash the server
   * (PublicationCheck). The warning is an HTTP Warning header on Connect's unchanged answer; Debezium's default and a
   * publication made by hand get none.
   */
  @Test
  void aFilteredPublicationIsWarnedAboutAndTheSafeSetUpsAreNot() {
    pipeline.execute(pipeline.sourceDb, "CREATE TABLE IF NOT EXISTS public.stock (id int PRIMARY KEY, qty int)");
    String name = pipeline.name + "-stock";
    String publication = pipeline.name + "_stock_pub";
    Map<String, String> filtered = source(pipeline.name + "_stock", "public\\.stock",
        Map.of("publication.name", publication, "publication.autocreate.mode", "filtered"));
    filtered.put("name", name);

    ConnectClient.Reply validated = rest.call("PUT", VALIDATE, filtered);
    assertEquals(200, validated.status(), validated.body());
    assertEquals(0, validated.json().path("error_count").asInt(), validated.body());
    assertEquals(1, validated.warnings().size(), validated.warnings().toString());
    String warning = validated.warnings().get(0);
    assertTrue(warning.startsWith("299 sluice \"publication.autocreate.mode=filtered"), warning);
    assertTrue(warning.contains("pg_publication_tables"), warning);
    assertTrue(warning.contains("CREATE PUBLICATION " + publication + " FOR TABLE public.stock"), warning);
    assertTrue(warning.contains("publication.autocreate.mode=disabled"), warning);
    assertTrue(warning.contains("all_tables"), warning);
    // Sluice's own client (sluice connectors apply, the console) reads it as the text.
    List<String> read = new ConnectRestClient(worker.restUrl(), ClientOptions.defaults())
        .validation(POSTGRES, new ObjectMapper().valueToTree(filtered)).warnings();
    assertEquals(1, read.size(), read.toString());
    assertTrue(read.get(0).startsWith("publication.autocreate.mode=filtered: ") && !read.get(0).endsWith("\""),
        read.get(0));

    // Created all the same, the warning on the answer.
    ConnectClient.Reply created = rest.create(name, filtered);
    assertEquals(201, created.status(), created.body());
    assertEquals(List.of(warning), created.warnings());
    assertEquals(204, rest.call("DELETE", "/connectors/" + name, null).status());

    for (String safe : List.of("all_tables", "disabled")) {
      Map<String, String> config = new LinkedHashMap<>(filtered);
      config.put("publication.autocreate.mode", safe);
      ConnectClient.Reply r = rest.call("PUT", VALIDATE, config);
      assertEquals(200, r.status(), r.body());
      assertEquals(List.of(), r.warnings(), safe);
    }
    Map<String, String> unset = new LinkedHashMap<>(filtered);
    unset.remove("publication.autocreate.mode");
    assertEquals(List.of(), rest.call("PUT", VALIDATE, unset).warnings(), "Debezium's default, all_tables");
  }

  /**
   * A MariaDB source's date columns that can hold a zero date, which Debezium's binlog source delivers as NULL, are
   * named in a warning before data flows (BinlogZeroDateCheck): the columns of the captured tables only, none the
   * config accepts the loss of, and nothing where no captured column is a date.
   */
  @Test
  void aBinlogSourcesDateColumnsThatCanHoldZeroDatesAreNamedBeforeDataFlows() throws Exception {
    String db = pipeline.name + "_zero";
    String url = MariaDbServer.createDatabase(db);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id int PRIMARY KEY, placed date, shipped datetime(3), seen timestamp NULL, "
          + "note text)");
      s.execute("CREATE TABLE notes (id int PRIMARY KEY, body text)");
      s.execute("CREATE TABLE audit (id int PRIMARY KEY, at datetime)");
    }
    int port = java.net.URI.create(url.substring("jdbc:".length())).getPort();
    String maria = "io.debezium.connector.mariadb.MariaDbConnector";
    Map<String, String> config = new LinkedHashMap<>(Map.of("connector.class", maria, "name", db + "-source",
        "database.hostname", "127.0.0.1", "database.port", String.valueOf(port), "database.user", "root",
        "database.server.id", "5401", "topic.prefix", db, "database.include.list", db,
        "table.include.list", db + "\\.orders," + db + "\\.notes"));
    String validate = "/connector-plugins/" + maria + "/config/validate";

    ConnectClient.Reply r = rest.call("PUT", validate, config);
    assertEquals(200, r.status(), r.body());
    assertEquals(1, r.warnings().size(), r.warnings().toString());
    String warning = r.warnings().get(0);
    for (String column : List.of("orders.placed (date)", "orders.shipped (datetime(3))", "orders.seen (timestamp)")) {
      assertTrue(warning.contains(db + "." + column), column + " in " + warning);
    }
    assertFalse(warning.contains("audit"), "a table not captured: " + warning);
    assertFalse(warning.contains("note"), "not a date: " + warning);
    assertTrue(warning.contains("as NULL") && warning.contains("NO_ZERO_DATE,NO_ZERO_IN_DATE")
        && warning.contains("sluice.columns.accept.loss"), warning);

    Map<String, String> accepted = new LinkedHashMap<>(config);
    accepted.put("sluice.columns.accept.loss", db + "\\.orders\\..*");
    ConnectClient.Reply none = rest.call("PUT", validate, accepted);
    assertEquals(200, none.status(), none.body());
    assertEquals(List.of(), none.warnings(), "every date column's loss accepted");

    Map<String, String> noDates = new LinkedHashMap<>(config);
    noDates.put("table.include.list", db + "\\.notes");
    assertEquals(List.of(), rest.call("PUT", validate, noDates).warnings(), "no date column captured");
  }

  /**
   * An enum member holding a comma cannot be told apart from two members in Debezium's {@code allowed}, so a MariaDB
   * source capturing one is refused before data flows (BinlogColumnCheck), naming table, column, type and member,
   * until the column is excluded or its loss accepted; the text column the refusal proposes is valid DDL and is not
   * refused itself.
   */
  @Test
  void aBinlogEnumMemberHoldingACommaIsRefusedBeforeDataFlowsUntilExcludedOrAccepted() throws Exception {
    String db = pipeline.name + "_enum";
    String url = MariaDbServer.createDatabase(db);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE moods (id int PRIMARY KEY, mood enum('ok','so, so','it''s'), plain enum('a','b'), "
          + "tags set('x','y z'))");
      // A set's members cannot hold a comma at all: MariaDB refuses one, so only enums are ever found.
      java.sql.SQLException noSet = org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class,
          () -> s.execute("CREATE TABLE sets (id int PRIMARY KEY, t set('a','b,c'))"));
      assertTrue(noSet.getMessage().contains("b,c"), noSet.getMessage());
    }
    int port = java.net.URI.create(url.substring("jdbc:".length())).getPort();
    String maria = "io.debezium.connector.mariadb.MariaDbConnector";
    String name = db + "-source";
    Map<String, String> config = new LinkedHashMap<>(Map.of("connector.class", maria, "database.hostname",
        "127.0.0.1", "database.port", String.valueOf(port), "database.user", "root", "database.server.id", "5402",
        "topic.prefix", db, "database.include.list", db));
    String validate = "/connector-plugins/" + maria + "/config/validate";
    Map<String, String> named = new LinkedHashMap<>(config);
    named.put("name", name);

    ConnectClient.Reply r = rest.call("PUT", validate, named);
    assertEquals(200, r.status(), r.body());
    List<String> found = errors(r.json()).getOrDefault("column.exclude.list", List.of());
    assertEquals(1, found.size(), r.body());
    assertEquals(1, r.json().path("error_count").asInt(), r.body());
    String refusal = found.get(0);
    assertTrue(refusal.startsWith("Column mood of table " + db + ".moods (enum('ok','so, so','it''s')) is not carried "
        + "faithfully"), refusal);
    assertTrue(refusal.contains("the member 'so, so' reads as 'so' and ' so'"), refusal);
    assertTrue(refusal.contains(db + "\\.moods\\.mood to column.exclude.list"), refusal);
    assertTrue(refusal.contains("sluice.columns.accept.loss"), refusal);
    assertEquals(List.of(), r.warnings(), "no date column: no zero-date warning");

    ConnectClient.Reply refused = rest.create(name, config);
    assertEquals(400, refused.status(), refused.body());
    assertTrue(refused.json().path("message").asText().contains("'so, so'"), refused.body());
    assertEquals(404, rest.call("GET", "/connectors/" + name, null).status());

    // The proposed text column is valid DDL, and as a varchar it is not refused.
    Matcher ddl = Pattern.compile("ALTER TABLE [^)]*\\) AS \\(mood\\) STORED")
        .matcher(refusal);
    assertTrue(ddl.find(), refusal);
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement s = c.createStatement()) {
      s.execute(ddl.group());
      s.execute("INSERT INTO moods (id, mood) VALUES (1, 'so, so')");
      try (java.sql.ResultSet rs = s.executeQuery("SELECT mood_text FROM moods")) {
        assertTrue(rs.next());
        assertEquals("so, so", rs.getString(1));
      }
    }
    Map<String, String> excluded = new LinkedHashMap<>(named);
    excluded.put("column.exclude.list", db + "\\.moods\\.mood");
    ConnectClient.Reply ok = rest.call("PUT", validate, excluded);
    assertEquals(Map.of(), errors(ok.json()), ok.body());

    Map<String, String> accepted = new LinkedHashMap<>(named);
    accepted.put("sluice.columns.accept.loss", db + "\\.moods\\.mood");
    ok = rest.call("PUT", validate, accepted);
    assertEquals(Map.of(), errors(ok.json()), ok.body());

    accepted.put("sluice.columns.accept.loss", db + "\\.moods\\.(mood");
    Map<String, List<String>> wrong = errors(rest.call("PUT", validate, accepted).json());
    assertEquals(1, wrong.getOrDefault("sluice.columns.accept.loss", List.of()).size(), wrong.toString());
    assertFalse(wrong.containsKey("column.exclude.list"), wrong.toString());
  }

  /**
   * A Sluice JDBC sink into MariaDB is warned about, never refused, when its topics' latest value schemas in the
   * registry hold fields from PostgreSQL columns that can hold NaN, ±Infinity or an infinite date
   * (BinlogSinkValueCheck), in each of the registry's formats; a MariaDB source's doubles, a topic with no schema, a
   * PostgreSQL target and a sink without a registry converter get none.
   */
  @Test
  void aMariaDbSinksFieldsFromPostgresColumnsThatCanHoldNanOrInfinityAreNamedBeforeDataFlows() {
    String db = pipeline.name + "_nan";
    String mariaUrl = MariaDbServer.createDatabase(db);
    try (SchemaRegistry registry = SchemaRegistry.builder()
        .bootstrapServers(SharedKafka.bootstrapServers()).topic(SharedKafka.unique("_schemas")).port(0).start()) {
      String fromMaria = db + ".maria.shop.t";
      for (String converter : List.of("io.sluice.serde.connect.AvroConverter",
          "io.sluice.serde.connect.ProtobufConverter", "io.sluice.serde.connect.JsonSchemaConverter")) {
        String format = converter.substring(converter.lastIndexOf('.') + 1);
        String topic = db + "." + format + ".public.t";
        register(converter, registry.url(), topic, "io.debezium.connector.postgresql.Source", "FLOAT4", "FLOAT8",
            "NUMERIC", "DATE", "TIMESTAMP", "TIMESTAMPTZ");
        register(converter, registry.url(), fromMaria + format, "io.debezium.connector.mariadb.Source", "FLOAT",
            "DOUBLE", "DECIMAL", "DATE", "DATETIME", "TIMESTAMP");
        Map<String, String> sink = new LinkedHashMap<>(Map.of("name", db + "-" + format + "-sink",
            "connector.class", "io.sluice.sink.jdbc.SluiceJdbcSinkConnector", "connection.url", mariaUrl,
            "topics", topic + "," + fromMaria + format + "," + db + ".not.yet", "value.converter", converter,
            "value.converter.schema.registry.url", registry.url(), "key.converter", converter,
            "key.converter.schema.registry.url", registry.url()));
        ConnectClient.Reply r = rest.call("PUT", SINK_VALIDATE, sink);
        assertEquals(200, r.status(), r.body());
        assertEquals(1, r.warnings().size(), format + ": " + r.warnings());
        String warning = r.warnings().get(0);
        assertTrue(warning.startsWith("299 sluice \"values MariaDB and MySQL cannot hold: 6 fields"), warning);
        assertTrue(warning.contains(topic + ": c_real (FLOAT4), c_double (FLOAT8), c_num (NUMERIC), c_date (DATE), "
            + "c_ts (TIMESTAMP), c_tstz (TIMESTAMPTZ)"), warning);
        assertTrue(warning.contains("NaN and ±Infinity") && warning.contains("infinity and -infinity"), warning);
        assertTrue(warning.contains("dead letter queue " + db + "-" + format + "-sink.dlq"), warning);
        assertFalse(warning.contains(fromMaria) || warning.contains("c_id"), warning);

        if (!format.equals("AvroConverter")) {
          continue;
        }
        Map<String, String> failing = new LinkedHashMap<>(sink);
        failing.put("errors.tolerance", "none");
        String fails = rest.call("PUT", SINK_VALIDATE, failing).warnings().get(0);
        assertTrue(fails.contains("the sink task fails, having no dead letter queue"), fails);

        Map<String, String> quiet = new LinkedHashMap<>(sink);
        quiet.put("topics", fromMaria + format + "," + db + ".not.yet");
        assertEquals(List.of(), rest.call("PUT", SINK_VALIDATE, quiet).warnings(), "no field from PostgreSQL");
        Map<String, String> postgres = new LinkedHashMap<>(sink);
        postgres.put("connection.url", io.sluice.connect.testing.SharedPostgres.jdbcUrl(pipeline.sinkDb));
        assertEquals(List.of(), rest.call("PUT", SINK_VALIDATE, postgres).warnings(), "PostgreSQL holds them all");
        Map<String, String> json = new LinkedHashMap<>(sink);
        json.keySet().removeIf(k -> k.contains("converter"));
        assertEquals(List.of(), rest.call("PUT", SINK_VALIDATE, json).warnings(), "no registry to ask");
        Map<String, String> byRegex = new LinkedHashMap<>(sink);
        byRegex.remove("topics");
        byRegex.put("topics.regex", Pattern.quote(db + ".") + "Avro.*");
        String matched = rest.call("PUT", SINK_VALIDATE, byRegex).warnings().get(0);
        assertTrue(matched.contains(topic + ": c_real (FLOAT4)"), matched);
      }
    }
  }

  private static final String SINK_VALIDATE =
      "/connector-plugins/io.sluice.sink.jdbc.SluiceJdbcSinkConnector/config/validate";

  /** Registers, as {@code converter} writes one record, a Debezium envelope whose row has a field per source type. */
  private static void register(String converterClass, String registryUrl, String topic, String source,
      String... sourceTypes) {
    SchemaBuilder row = SchemaBuilder.struct()
        .name(topic + ".Value").optional()
        .field("c_id", SchemaBuilder.int32().parameter(
            "__debezium.source.column.type", "INT4").build());
    String[] names = {"c_real", "c_double", "c_num", "c_date", "c_ts", "c_tstz"};
    for (int i = 0; i < sourceTypes.length; i++) {
      row.field(names[i], SchemaBuilder.string().optional()
          .parameter("__debezium.source.column.type", sourceTypes[i]).build());
    }
    Schema rowSchema = row.build();
    Schema sourceSchema = SchemaBuilder.struct()
        .name(source).field("connector", Schema.STRING_SCHEMA).build();
    Schema envelope = SchemaBuilder.struct()
        .name(topic + ".Envelope").field("before", rowSchema).field("after", rowSchema)
        .field("source", sourceSchema).field("op", Schema.STRING_SCHEMA).build();
    Struct after = new Struct(rowSchema).put("c_id", 1);
    Struct value = new Struct(envelope)
        .put("after", after).put("source", new Struct(sourceSchema)
            .put("connector", "test")).put("op", "c");
    try {
      Converter converter = (Converter)
          Class.forName(converterClass).getConstructor().newInstance();
      converter.configure(Map.of("schema.registry.url", registryUrl), false);
      converter.fromConnectData(topic, envelope, value);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void anUnreachableDatabaseIsLeftToDebeziumsOwnValidation() {
    Map<String, String> config = source(pipeline.name + "_gone", "public\\.events",
        Map.of("database.port", String.valueOf(TestWorkers.freePort())));
    JsonNode verdict = validate(pipeline.name + "-gone", config);
    Map<String, List<String>> errors = errors(verdict);
    assertFalse(errors.containsKey("column.exclude.list"), errors.toString());
    assertTrue(errors.containsKey("database.hostname"), "Debezium reports the connection itself: " + errors);
    int debeziums = errors.values().stream().mapToInt(List::size).sum();
    assertEquals(debeziums, verdict.path("error_count").asInt(), verdict.toString());
  }
}
