package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The built-in library against Terraform's documented examples. Each case is an expression and the
 * JSON encoding of its expected value.
 */
class FunctionLibraryTest {
  @TempDir Path dir;

  private EvalResult eval(String text) {
    ExpressionResult r = Parser.parseExpression("expr.tf", text);
    assertThat(r.diagnostics().list()).as("parse diagnostics of %s", text).isEmpty();
    return new Evaluator()
        .evaluate(r.expression(), SimpleEvalContext.empty().withBaseDirectory(dir));
  }

  private String json(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().list()).as("diagnostics of %s", text).isEmpty();
    return Json.encode(r.value());
  }

  private Diagnostic err(String text) {
    EvalResult r = eval(text);
    assertThat(r.diagnostics().errors()).as("errors of %s", text).isNotEmpty();
    return r.diagnostics().errors().get(0);
  }

  static Stream<Arguments> documentedExamples() {
    return Stream.of(
        // strings
        Arguments.of("trim(\"?!hello?!\", \"!?\")", "\"hello\""),
        Arguments.of("trim(\"foobar\", \"far\")", "\"oob\""),
        Arguments.of("trimspace(\"  hello\\n\\n\")", "\"hello\""),
        Arguments.of("trimprefix(\"helloworld\", \"hello\")", "\"world\""),
        Arguments.of("trimsuffix(\"helloworld\", \"world\")", "\"hello\""),
        Arguments.of("title(\"hello world\")", "\"Hello World\""),
        Arguments.of(
            "indent(2, \"[\\n  foo,\\n  bar,\\n]\\n\")", "\"[\\n    foo,\\n    bar,\\n  ]\\n  \""),
        Arguments.of("strcontains(\"hello world\", \"wor\")", "true"),
        Arguments.of("strcontains(\"hello world\", \"wod\")", "false"),
        Arguments.of(
            "formatlist(\"Hello, %s!\", [\"Valentina\", \"Ander\"])",
            "[\"Hello, Valentina!\",\"Hello, Ander!\"]"),
        Arguments.of(
            "formatlist(\"%s, %s!\", \"Salutations\", [\"Valentina\", \"Ander\"])",
            "[\"Salutations, Valentina!\",\"Salutations, Ander!\"]"),
        Arguments.of("regex(\"[a-z]+\", \"53453453.345345aaabbbccc23454\")", "\"aaabbbccc\""),
        Arguments.of(
            "regex(\"(\\\\d\\\\d\\\\d\\\\d)-(\\\\d\\\\d)-(\\\\d\\\\d)\", \"2019-02-01\")",
            "[\"2019\",\"02\",\"01\"]"),
        Arguments.of(
            "regex(\"^(?:(?P<scheme>[^:/?#]+):)?(?://(?P<authority>[^/?#]*))?\", \"https://terraform.io/docs/\")",
            "{\"authority\":\"terraform.io\",\"scheme\":\"https\"}"),
        Arguments.of("regex(\"^(?:(?P<first_name>a)|b)\", \"b\")", "{\"first_name\":null}"),
        Arguments.of("regexall(\"[a-z]+\", \"1234abcd5678efgh9\")", "[\"abcd\",\"efgh\"]"),
        Arguments.of("length(regexall(\"[a-z]+\", \"1234abcd5678efgh9\"))", "2"),
        Arguments.of("length(regexall(\"[a-z]+\", \"123456789\")) > 0", "false"),
        Arguments.of("replace(\"1 + 2 + 3\", \"+\", \"-\")", "\"1 - 2 - 3\""),
        Arguments.of("replace(\"hello world\", \"/w.*d/\", \"everybody\")", "\"hello everybody\""),
        // encoding
        Arguments.of("urlencode(\"Hello World!\")", "\"Hello+World%21\""),
        Arguments.of("urlencode(\"☃\")", "\"%E2%98%83\""),
        Arguments.of("urlencode(\"foo=bar&bar=baz\")", "\"foo%3Dbar%26bar%3Dbaz\""),
        Arguments.of("urlencode(\"a*b~c\")", "\"a%2Ab~c\""),
        Arguments.of(
            "yamlencode({\"a\":\"b\", \"c\":\"d\"})",
            "\"\\\"a\\\": \\\"b\\\"\\n\\\"c\\\": \\\"d\\\"\\n\""),
        Arguments.of(
            "yamlencode({\"foo\":[1, 2, 3], \"bar\": \"baz\"})",
            "\"\\\"bar\\\": \\\"baz\\\"\\n\\\"foo\\\":\\n- 1\\n- 2\\n- 3\\n\""),
        Arguments.of(
            "yamlencode({\"foo\":[1, {\"a\":\"b\",\"c\":\"d\"}, 3], \"bar\": \"baz\"})",
            "\"\\\"bar\\\": \\\"baz\\\"\\n\\\"foo\\\":\\n- 1\\n- \\\"a\\\": \\\"b\\\"\\n  \\\"c\\\": \\\"d\\\"\\n- 3\\n\""),
        Arguments.of(
            "yamlencode({a = {b = [[1, 2], []], c = {}, d = null, e = true}})",
            "\"\\\"a\\\":\\n  \\\"b\\\":\\n  - - 1\\n    - 2\\n  - []\\n  \\\"c\\\": {}\\n  \\\"d\\\": null\\n  \\\"e\\\": true\\n\""),
        Arguments.of("yamlencode(\"x\")", "\"\\\"x\\\"\\n\""),
        Arguments.of("yamldecode(\"hello: world\")", "{\"hello\":\"world\"}"),
        Arguments.of("yamldecode(\"true\")", "true"),
        Arguments.of(
            "yamldecode(\"{a: &foo [1, 2, 3], b: *foo}\")", "{\"a\":[1,2,3],\"b\":[1,2,3]}"),
        Arguments.of(
            "yamldecode(\"- 1.5\\n- ~\\n- 2018-01-02\\n- '7'\")",
            "[1.5,null,\"2018-01-02\",\"7\"]"),
        Arguments.of(
            "yamldecode(yamlencode({a = [1, \"x\", {b = false}], c = \"multi\\nline\"}))",
            "{\"a\":[1,\"x\",{\"b\":false}],\"c\":\"multi\\nline\"}"),
        Arguments.of(
            "base64sha512(\"hello world\")",
            "\"MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw==\""),
        Arguments.of(
            "sha512(\"hello world\")",
            "\"309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f\""),
        Arguments.of(
            "base64sha256(\"hello world\")", "\"uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=\""),
        Arguments.of("md5(\"hello world\")", "\"5eb63bbbe01eeed093cb22bb8f5acdc3\""),
        Arguments.of(
            "uuidv5(\"dns\", \"www.terraform.io\")", "\"a5008fae-b28c-5ba5-96cd-82b4c53552d6\""),
        Arguments.of(
            "uuidv5(\"url\", \"https://www.terraform.io/\")",
            "\"9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5\""),
        Arguments.of("uuidv5(\"oid\", \"1.3.6.1.4\")", "\"af9d40a5-7a36-5c07-b23a-851cd99fbfa5\""),
        Arguments.of(
            "uuidv5(\"x500\", \"CN=Example,C=GB\")", "\"84e09961-4aa4-57f8-95b7-03edb1073253\""),
        Arguments.of(
            "uuidv5(\"6ba7b810-9dad-11d1-80b4-00c04fd430c8\", \"www.terraform.io\")",
            "\"a5008fae-b28c-5ba5-96cd-82b4c53552d6\""),
        // date and time
        Arguments.of(
            "formatdate(\"DD MMM YYYY hh:mm ZZZ\", \"2018-01-02T23:12:01Z\")",
            "\"02 Jan 2018 23:12 UTC\""),
        Arguments.of(
            "formatdate(\"EEEE, DD-MMM-YY hh:mm:ss ZZZ\", \"2018-01-02T23:12:01Z\")",
            "\"Tuesday, 02-Jan-18 23:12:01 UTC\""),
        Arguments.of(
            "formatdate(\"EEE, DD MMM YYYY hh:mm:ss ZZZ\", \"2018-01-02T23:12:01-08:00\")",
            "\"Tue, 02 Jan 2018 23:12:01 -0800\""),
        Arguments.of("formatdate(\"MMM DD, YYYY\", \"2018-01-02T23:12:01Z\")", "\"Jan 02, 2018\""),
        Arguments.of("formatdate(\"HH:mmaa\", \"2018-01-02T23:12:01Z\")", "\"11:12pm\""),
        Arguments.of("formatdate(\"h 'o''clock'\", \"2018-01-02T07:00:00Z\")", "\"7 o'clock\""),
        Arguments.of(
            "formatdate(\"YYYY-MM-DD'T'hh:mm:ssZ\", \"2018-01-02T23:12:01+05:30\")",
            "\"2018-01-02T23:12:01+05:30\""),
        Arguments.of("timeadd(\"2017-11-22T00:00:00Z\", \"10m\")", "\"2017-11-22T00:10:00Z\""),
        Arguments.of("timeadd(\"2017-11-22T00:00:00Z\", \"-1h30m\")", "\"2017-11-21T22:30:00Z\""),
        Arguments.of(
            "timeadd(\"2017-11-22T00:00:00+01:00\", \"1.5s\")", "\"2017-11-22T00:00:01.5+01:00\""),
        Arguments.of("timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T00:00:00Z\")", "0"),
        Arguments.of("timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T01:00:00Z\")", "-1"),
        Arguments.of("timecmp(\"2017-11-22T01:00:00Z\", \"2017-11-22T00:00:00Z\")", "1"),
        Arguments.of("timecmp(\"2017-11-22T01:00:00Z\", \"2017-11-22T00:00:00-01:00\")", "0"),
        // numeric
        Arguments.of("parseint(\"100\", 10)", "100"),
        Arguments.of("parseint(\"FF\", 16)", "255"),
        Arguments.of("parseint(\"-10\", 16)", "-16"),
        Arguments.of("parseint(\"1011111011101111\", 2)", "48879"),
        Arguments.of("parseint(\"aA\", 62)", "656"),
        Arguments.of("signum(-13)", "-1"),
        Arguments.of("signum(0)", "0"),
        Arguments.of("signum(344)", "1"),
        Arguments.of("log(16, 2)", "4"),
        Arguments.of("log(1, 10)", "0"),
        Arguments.of("pow(3, 2)", "9"),
        Arguments.of("pow(4, 0)", "1"),
        Arguments.of("pow(4, 0.5)", "2"),
        Arguments.of("ceil(5)", "5"),
        Arguments.of("ceil(5.1)", "6"),
        Arguments.of("floor(4.9)", "4"),
        Arguments.of("floor(-4.1)", "-5"),
        Arguments.of("sum([10, 13, 6, 4.5])", "33.5"),
        // collections
        Arguments.of("index([\"a\", \"b\", \"c\"], \"b\")", "1"),
        Arguments.of("slice([\"a\", \"b\", \"c\", \"d\"], 1, 3)", "[\"b\",\"c\"]"),
        Arguments.of("sort([\"e\", \"d\", \"a\", \"x\"])", "[\"a\",\"d\",\"e\",\"x\"]"),
        Arguments.of(
            "setunion([\"a\", \"b\"], [\"b\", \"c\"], [\"d\"])", "[\"a\",\"b\",\"c\",\"d\"]"),
        Arguments.of("setintersection([\"a\", \"b\"], [\"b\", \"c\"], [\"b\", \"d\"])", "[\"b\"]"),
        Arguments.of("setsubtract([\"a\", \"b\", \"c\"], [\"a\", \"c\"])", "[\"b\"]"),
        Arguments.of(
            "setproduct([\"development\", \"staging\", \"production\"], [\"app1\", \"app2\"])",
            "[[\"development\",\"app1\"],[\"development\",\"app2\"],[\"staging\",\"app1\"],[\"staging\",\"app2\"],[\"production\",\"app1\"],[\"production\",\"app2\"]]"),
        Arguments.of("setproduct([\"a\"], [])", "[]"),
        Arguments.of("toset([\"c\", \"b\", \"b\"])", "[\"b\",\"c\"]"),
        Arguments.of("toset([3, 1, 2, 1])", "[1,2,3]"),
        Arguments.of(
            "transpose({\"a\" = [\"1\", \"2\"], \"b\" = [\"2\", \"3\"]})",
            "{\"1\":[\"a\"],\"2\":[\"a\",\"b\"],\"3\":[\"b\"]}"),
        Arguments.of("keys({a=1, c=2, d=3})", "[\"a\",\"c\",\"d\"]"),
        Arguments.of("values({a=3, c=2, d=1})", "[3,2,1]"),
        Arguments.of("one([])", "null"),
        Arguments.of("one([\"hello\"])", "\"hello\""),
        Arguments.of("alltrue([\"true\", true])", "true"),
        Arguments.of("alltrue([true, false])", "false"),
        Arguments.of("alltrue([])", "true"),
        Arguments.of("anytrue([\"true\"])", "true"),
        Arguments.of("anytrue([true, false])", "true"),
        Arguments.of("anytrue([])", "false"),
        Arguments.of("coalescelist([\"a\", \"b\"], [\"c\", \"d\"])", "[\"a\",\"b\"]"),
        Arguments.of("coalescelist([], [\"c\", \"d\"])", "[\"c\",\"d\"]"),
        Arguments.of(
            "chunklist([\"a\", \"b\", \"c\", \"d\", \"e\"], 2)",
            "[[\"a\",\"b\"],[\"c\",\"d\"],[\"e\"]]"),
        Arguments.of(
            "chunklist([\"a\", \"b\", \"c\", \"d\", \"e\"], 1)",
            "[[\"a\"],[\"b\"],[\"c\"],[\"d\"],[\"e\"]]"),
        Arguments.of(
            "matchkeys([\"i-123\", \"i-abc\", \"i-def\"], [\"us-west\", \"us-east\", \"us-east\"], [\"us-east\"])",
            "[\"i-abc\",\"i-def\"]"),
        Arguments.of("lookup({a=\"ay\", b=\"bee\"}, \"a\", \"what?\")", "\"ay\""),
        Arguments.of("lookup({a=\"ay\", b=\"bee\"}, \"c\", \"what?\")", "\"what?\""),
        // type conversion
        Arguments.of("tobool(\"true\")", "true"),
        Arguments.of("tobool(null)", "null"),
        Arguments.of("tonumber(\"1\")", "1"),
        Arguments.of("tostring(true)", "\"true\""),
        Arguments.of("tolist([\"a\", \"b\", 3])", "[\"a\",\"b\",3]"),
        Arguments.of("tomap({\"a\" = 1, \"b\" = 2})", "{\"a\":1,\"b\":2}"),
        Arguments.of("issensitive(sensitive(1))", "true"),
        Arguments.of("issensitive(1)", "false"),
        // IP network
        Arguments.of("cidrhost(\"10.12.112.0/20\", 16)", "\"10.12.112.16\""),
        Arguments.of("cidrhost(\"10.12.112.0/20\", 268)", "\"10.12.113.12\""),
        Arguments.of("cidrhost(\"10.12.112.0/20\", -1)", "\"10.12.127.255\""),
        Arguments.of(
            "cidrhost(\"fd00:fd12:3456:7890:00a2::/72\", 34)", "\"fd00:fd12:3456:7890::22\""),
        Arguments.of("cidrnetmask(\"172.16.0.0/12\")", "\"255.240.0.0\""),
        Arguments.of("cidrsubnet(\"172.16.0.0/12\", 4, 2)", "\"172.18.0.0/16\""),
        Arguments.of("cidrsubnet(\"10.1.2.0/24\", 4, 15)", "\"10.1.2.240/28\""),
        Arguments.of(
            "cidrsubnet(\"fd00:fd12:3456:7890::/56\", 16, 162)",
            "\"fd00:fd12:3456:7800:a200::/72\""),
        Arguments.of(
            "cidrsubnets(\"10.1.0.0/16\", 4, 4, 8, 4)",
            "[\"10.1.0.0/20\",\"10.1.16.0/20\",\"10.1.32.0/24\",\"10.1.48.0/20\"]"),
        Arguments.of(
            "cidrsubnets(\"fd00:fd12:3456:7890::/56\", 16, 16, 16, 32)",
            "[\"fd00:fd12:3456:7800::/72\",\"fd00:fd12:3456:7800:100::/72\",\"fd00:fd12:3456:7800:200::/72\",\"fd00:fd12:3456:7800:300::/88\"]"),
        Arguments.of(
            "[for cidr_block in cidrsubnets(\"10.0.0.0/8\", 8, 8, 8, 8) : cidrsubnets(cidr_block, 4, 4)]",
            "[[\"10.0.0.0/20\",\"10.0.16.0/20\"],[\"10.1.0.0/20\",\"10.1.16.0/20\"],[\"10.2.0.0/20\",\"10.2.16.0/20\"],[\"10.3.0.0/20\",\"10.3.16.0/20\"]]"),
        // paths
        Arguments.of("dirname(\"foo/bar/baz.txt\")", "\"foo/bar\""),
        Arguments.of("dirname(\"baz.txt\")", "\".\""),
        Arguments.of("dirname(\"/baz.txt\")", "\"/\""),
        Arguments.of("basename(\"foo/bar/baz.txt\")", "\"baz.txt\""),
        Arguments.of("basename(\"foo/bar/\")", "\"bar\""),
        Arguments.of("pathexpand(\"/etc/resolv.conf\")", "\"/etc/resolv.conf\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("documentedExamples")
  void documentedExample(String expr, String expectedJson) {
    assertThat(json(expr)).isEqualTo(expectedJson);
  }

  static Stream<Arguments> documentedErrors() {
    return Stream.of(
        Arguments.of("regex(\"[a-z]+\", \"123\")", "did not match"),
        Arguments.of("regex(\"(a)(?P<n>b)\", \"ab\")", "all named or all unnamed"),
        Arguments.of("regex(\"(\", \"x\")", "invalid regular expression"),
        Arguments.of("parseint(\"12\", 2)", "cannot parse \"12\" as a base 2 integer"),
        Arguments.of("parseint(\"1\", 63)", "between 2 and 62"),
        Arguments.of("one([\"hello\", \"goodbye\"])", "zero or one elements"),
        Arguments.of("index([\"a\"], \"z\")", "not found"),
        Arguments.of("slice([\"a\"], 0, 2)", "end index"),
        Arguments.of("sum([])", "empty list"),
        Arguments.of("coalescelist([], [])", "no non-null"),
        Arguments.of("chunklist([1], -1)", "positive"),
        Arguments.of("matchkeys([1, 2], [1], [1])", "should be equal"),
        Arguments.of(
            "formatdate(\"YYYY-MM-DD Q\", \"2018-01-02T23:12:01Z\")",
            "invalid date format verb \"Q\""),
        Arguments.of("formatdate(\"YYYY\", \"2018-01-02\")", "not a valid RFC 3339 timestamp"),
        Arguments.of("timeadd(\"2017-11-22T00:00:00Z\", \"10 minutes\")", "invalid duration"),
        Arguments.of("cidrhost(\"10.0.0.0/30\", 4)", "does not accommodate a host numbered 4"),
        Arguments.of("cidrsubnet(\"10.0.0.0/30\", 4, 0)", "insufficient address space"),
        Arguments.of(
            "cidrsubnet(\"10.0.0.0/16\", 2, 4)", "does not accommodate a subnet numbered 4"),
        Arguments.of("cidrsubnets(\"10.0.0.0/24\", 1, 1, 1)", "not enough remaining address space"),
        Arguments.of("cidrnetmask(\"fd00::/8\")", "only supports IPv4"),
        Arguments.of("cidrhost(\"10.0.0/8\", 1)", "invalid IP address"),
        Arguments.of("uuidv5(\"nope\", \"x\")", "namespace must be"),
        Arguments.of("yamldecode(\"a: [\")", "not valid YAML"),
        Arguments.of("yamldecode(\"a: 1\\n---\\nb: 2\")", "more than one document"),
        Arguments.of("yamldecode(\"a: 1\\na: 2\")", "not valid YAML"),
        Arguments.of("alltrue([1])", "must be bools"),
        Arguments.of("templatefile(\"missing.tpl\", {})", "no file exists"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("documentedErrors")
  void documentedError(String expr, String messagePart) {
    Diagnostic d = err(expr);
    assertThat(d.summary() + ": " + d.detail()).contains(messagePart);
    assertThat(d.range().file()).isEqualTo("expr.tf");
  }

  @Test
  void templatefileRendersTheTemplateWithTheGivenVariables() throws Exception {
    Files.writeString(
        dir.resolve("backends.tftpl"),
        "%{ for addr in ip_addrs ~}\nbackend ${addr}:${port}\n%{ endfor ~}\n");
    assertThat(
            json(
                "templatefile(\"backends.tftpl\", { port = 8080, ip_addrs = [\"10.0.0.1\", \"10.0.0.2\"] })"))
        .isEqualTo("\"backend 10.0.0.1:8080\\nbackend 10.0.0.2:8080\\n\"");
    Files.writeString(
        dir.resolve("config.tftpl"),
        "[config]\n%{ for config_key, config_value in config }\nset ${config_key} = ${config_value}\n%{ endfor ~}\n");
    assertThat(
            json(
                "templatefile(\"config.tftpl\", { config = { \"x\" = \"y\", \"foo\" = \"bar\" } })"))
        .isEqualTo("\"[config]\\n\\nset foo = bar\\n\\nset x = y\\n\"");
    Files.writeString(
        dir.resolve("json.tftpl"),
        "${jsonencode({ \"backends\" : [for a in ips : \"${a}:8080\"] })}");
    assertThat(json("templatefile(\"json.tftpl\", { ips = [\"10.0.0.1\"] })"))
        .isEqualTo("\"{\\\"backends\\\":[\\\"10.0.0.1:8080\\\"]}\"");
    Files.writeString(dir.resolve("escape.tftpl"), "$${literal} %%{x} \\n ${upper(v)}");
    assertThat(json("templatefile(\"escape.tftpl\", { v = \"a\" })"))
        .isEqualTo("\"${literal} %{x} \\\\n A\"");
  }

  @Test
  void templatefileReportsUndefinedVariablesAndSyntaxErrorsAndForbidsRecursion() throws Exception {
    Files.writeString(dir.resolve("t.tftpl"), "hello ${name}\n${nope}");
    assertThat(err("templatefile(\"t.tftpl\", { name = \"x\" })").detail())
        .contains("t.tftpl:2:3")
        .contains("nope");
    Files.writeString(dir.resolve("bad.tftpl"), "x ${ 1 + }");
    assertThat(err("templatefile(\"bad.tftpl\", {})").detail()).contains("the template has errors");
    Files.writeString(dir.resolve("rec.tftpl"), "${templatefile(\"rec.tftpl\", {})}");
    assertThat(err("templatefile(\"rec.tftpl\", {})").detail()).contains("recursively");
    assertThat(err("templatefile(\"rec.tftpl\", {\"not valid\" = 1})").detail())
        .contains("invalid template variable name");
  }

  @Test
  void filesetMatchesGlobsRelativeToThePathSorted() throws Exception {
    Files.createDirectories(dir.resolve("files/sub/deeper"));
    for (String f :
        new String[] {
          "files/hello.txt",
          "files/world.txt",
          "files/a.tpl",
          "files/sub/x.txt",
          "files/sub/deeper/y.txt"
        }) {
      Files.writeString(dir.resolve(f), f);
    }
    assertThat(json("fileset(\"files\", \"*.txt\")")).isEqualTo("[\"hello.txt\",\"world.txt\"]");
    assertThat(json("fileset(\"files\", \"{hello,a}.*\")")).isEqualTo("[\"a.tpl\",\"hello.txt\"]");
    assertThat(json("fileset(\"files\", \"**/*.txt\")"))
        .isEqualTo("[\"hello.txt\",\"sub/deeper/y.txt\",\"sub/x.txt\",\"world.txt\"]");
    assertThat(json("fileset(\"files\", \"sub/*\")")).isEqualTo("[\"sub/x.txt\"]");
    assertThat(json("fileset(\"nothing-here\", \"*\")")).isEqualTo("[]");
  }

  @Test
  void fileHashesAndPaths() throws Exception {
    Files.writeString(dir.resolve("hello.txt"), "hello world");
    assertThat(json("filesha512(\"hello.txt\")")).isEqualTo(json("sha512(\"hello world\")"));
    assertThat(json("filebase64sha256(\"hello.txt\")"))
        .isEqualTo(json("base64sha256(\"hello world\")"));
    assertThat(json("filebase64sha512(\"hello.txt\")"))
        .isEqualTo(json("base64sha512(\"hello world\")"));
    assertThat(json("abspath(\"hello.txt\")"))
        .isEqualTo(Json.quote(dir.toAbsolutePath().resolve("hello.txt").toString()));
    assertThat(json("pathexpand(\"~/.ssh/id_rsa\")"))
        .isEqualTo(Json.quote(System.getProperty("user.home") + "/.ssh/id_rsa"));
  }

  @Test
  void base64gzipCompressesTheUtf8Text() throws Exception {
    String b64 = (String) eval("base64gzip(\"hello ☃\")").value().toJava();
    try (GZIPInputStream in =
        new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(b64)))) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello ☃");
    }
  }

  @Test
  void newFunctionsPropagateSensitiveAndUnknown() {
    EvalResult r = eval("title(sensitive(\"a b\"))");
    assertThat(r.value().isSensitive()).isTrue();
    assertThat(r.value().render()).isEqualTo(Value.SENSITIVE_TEXT);
    ExpressionResult pr = Parser.parseExpression("x.tf", "cidrhost(var.net, 1)");
    EvalResult u =
        new Evaluator()
            .evaluate(
                pr.expression(), SimpleEvalContext.empty().withVariable("net", Value.unknown()));
    assertThat(u.value().isKnown()).isFalse();
  }
}
