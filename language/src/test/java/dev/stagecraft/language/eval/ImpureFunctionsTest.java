package dev.stagecraft.language.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code timestamp()} and {@code uuid()} are unknown while planning and known when applying, one
 * result per call site and scope; {@code plantimestamp()} is the plan's timestamp in both.
 */
class ImpureFunctionsTest {
  private final Evaluator evaluator = new Evaluator();
  private final AtomicInteger uuidCount = new AtomicInteger();
  private final SimpleEvalContext base =
      SimpleEvalContext.empty()
          .withClock(Clock.fixed(Instant.parse("2030-01-02T03:04:05.678Z"), ZoneOffset.UTC))
          .withUuids(() -> new UUID(0, uuidCount.incrementAndGet()));

  private Value eval(String text, EvalContext ctx) {
    ExpressionResult r = Parser.parseExpression("main.tf", text);
    assertThat(r.diagnostics().list()).isEmpty();
    EvalResult result = evaluator.evaluate(r.expression(), ctx);
    assertThat(result.diagnostics().list()).as("diagnostics of %s", text).isEmpty();
    return result.value();
  }

  @Test
  void timestampAndUuidAreUnknownWhilePlanning() {
    SimpleEvalContext planning = base.withImpureFunctionsUnknown(true);
    assertThat(eval("timestamp()", planning).isKnown()).isFalse();
    assertThat(eval("uuid()", planning).isKnown()).isFalse();
    assertThat(eval("core::uuid()", planning).isKnown()).isFalse();
    // what depends on them is unknown too
    assertThat(eval("\"at-${timestamp()}\"", planning).isKnown()).isFalse();
    assertThat(eval("{ always = timestamp(), x = \"a\" }", planning).isWhollyKnown()).isFalse();
    assertThat(uuidCount).hasValue(0);
  }

  @Test
  void planTimestampIsKnownWhilePlanningAndTheSameWhenApplying() {
    Instant plannedAt = Instant.parse("2030-01-01T00:00:00.900Z");
    SimpleEvalContext planning = base.withImpureFunctionsUnknown(true).withPlanTimestamp(plannedAt);
    assertThat(eval("plantimestamp()", planning).asString()).isEqualTo("2030-01-01T00:00:00Z");
    // applying later: timestamp() is the apply's time, plantimestamp() still the plan's
    SimpleEvalContext applying = base.withPlanTimestamp(plannedAt);
    assertThat(eval("plantimestamp()", applying).asString()).isEqualTo("2030-01-01T00:00:00Z");
    assertThat(eval("timestamp()", applying).asString()).isEqualTo("2030-01-02T03:04:05Z");
  }

  @Test
  void applyingGivesOneResultPerCallSiteAndScope() {
    CallSiteValues sites = new CallSiteValues();
    ExpressionResult twoCalls = Parser.parseExpression("main.tf", "[uuid(), uuid()]");
    EvalContext first = base.withCallSiteValues(sites, "null_resource.a[0]");
    Value once = evaluator.evaluate(twoCalls.expression(), first).value();
    Value again = evaluator.evaluate(twoCalls.expression(), first).value();
    // evaluated again in the same scope: the same values; two call sites: two values
    assertThat(again).isEqualTo(once);
    assertThat(once.toJava().toString())
        .isEqualTo("[00000000-0000-0000-0000-000000000001, 00000000-0000-0000-0000-000000000002]");
    Value otherInstance =
        evaluator
            .evaluate(twoCalls.expression(), base.withCallSiteValues(sites, "null_resource.a[1]"))
            .value();
    assertThat(otherInstance.toJava().toString())
        .isEqualTo("[00000000-0000-0000-0000-000000000003, 00000000-0000-0000-0000-000000000004]");
  }

  @Test
  void withoutRecordsEveryCallIsFresh() {
    assertThat(eval("uuid()", base)).isNotEqualTo(eval("uuid()", base));
  }

  @Test
  void aTemplateRenderedWhilePlanningHasUnknownTimestamps(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("t.tpl"), "at ${timestamp()}, plan ${plantimestamp()}");
    SimpleEvalContext planning =
        base.withBaseDirectory(dir)
            .withImpureFunctionsUnknown(true)
            .withPlanTimestamp(Instant.parse("2030-01-01T00:00:00Z"));
    assertThat(eval("templatefile(\"t.tpl\", {})", planning).isKnown()).isFalse();
    Files.writeString(dir.resolve("p.tpl"), "plan ${plantimestamp()}");
    assertThat(eval("templatefile(\"p.tpl\", {})", planning).asString())
        .isEqualTo("plan 2030-01-01T00:00:00Z");
    assertThat(eval("templatefile(\"t.tpl\", {})", base.withBaseDirectory(dir)).asString())
        .isEqualTo("at 2030-01-02T03:04:05Z, plan 2030-01-02T03:04:05Z");
  }
}
