package dev.stagecraft.platform.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.Map;

/**
 * The process's OpenTelemetry, for traces only (docs/adr/0083). Off and free unless {@code
 * OTEL_EXPORTER_OTLP_ENDPOINT} is set: then the no-op implementation is used, which allocates no
 * spans and exports nothing. With an endpoint, spans go over OTLP/HTTP (protobuf, through the JDK's
 * HTTP client) to {@code <endpoint>/v1/traces} in batches; the sampler is parent-based with a root
 * ratio of {@code STAGECRAFT_TRACES_SAMPLE_RATIO} (default 1: every run is traced).
 *
 * <p>Concurrency: {@link #start} is called once at a service's start (before its beans); {@link
 * #get} and {@link #tracer} are thread-safe reads of a volatile field.
 */
public final class Tracing {
  /** The instrumentation scope of Stagecraft's own spans. */
  public static final String SCOPE = "dev.stagecraft";

  public static final AttributeKey<String> TENANT = AttributeKey.stringKey("stagecraft.tenant");
  public static final AttributeKey<String> WORKSPACE =
      AttributeKey.stringKey("stagecraft.workspace");
  public static final AttributeKey<String> RUN = AttributeKey.stringKey("stagecraft.run");
  public static final AttributeKey<String> ACTION = AttributeKey.stringKey("stagecraft.action");

  private static final OpenTelemetry NOOP = OpenTelemetry.noop();
  private static volatile OpenTelemetry openTelemetry = NOOP;

  private Tracing() {}

  /**
   * Configures tracing from the environment for the service named {@code serviceName} (the {@code
   * service.name} of its spans) and registers a shutdown hook that exports what is buffered.
   */
  public static void start(String serviceName) {
    OpenTelemetry configured = fromEnvironment(serviceName, System.getenv());
    if (configured instanceof OpenTelemetrySdk sdk) {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(sdk::close, "tracing-shutdown-" + serviceName));
    }
    install(configured);
  }

  /**
   * The OpenTelemetry the environment {@code env} asks for: the no-op one without {@code
   * OTEL_EXPORTER_OTLP_ENDPOINT}, else an SDK exporting there.
   */
  public static OpenTelemetry fromEnvironment(String serviceName, Map<String, String> env) {
    String endpoint = env.getOrDefault("OTEL_EXPORTER_OTLP_ENDPOINT", "").trim();
    if (endpoint.isEmpty()) {
      return NOOP;
    }
    double ratio = ratio(env.getOrDefault("STAGECRAFT_TRACES_SAMPLE_RATIO", "1"));
    long delayMillis = Long.parseLong(env.getOrDefault("OTEL_BSP_SCHEDULE_DELAY", "2000").trim());
    String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    OtlpHttpSpanExporter exporter =
        OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").build();
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.create(
                            Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(ratio)))
            .addSpanProcessor(
                BatchSpanProcessor.builder(exporter)
                    .setScheduleDelay(Duration.ofMillis(delayMillis))
                    .build())
            .build();
    return OpenTelemetrySdk.builder()
        .setTracerProvider(provider)
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
  }

  private static double ratio(String text) {
    double ratio;
    try {
      ratio = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "STAGECRAFT_TRACES_SAMPLE_RATIO must be a number from 0 to 1, got '" + text + "'", e);
    }
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new IllegalArgumentException(
          "STAGECRAFT_TRACES_SAMPLE_RATIO must be from 0 to 1, got " + ratio);
    }
    return ratio;
  }

  /** Makes {@code otel} the process's OpenTelemetry (tests install an in-memory SDK). */
  public static void install(OpenTelemetry otel) {
    openTelemetry = otel;
  }

  /** Whether spans are recorded and exported (an endpoint is configured). */
  public static boolean enabled() {
    return openTelemetry != NOOP;
  }

  /** The process's OpenTelemetry (no-op unless configured). */
  public static OpenTelemetry get() {
    return openTelemetry;
  }

  /** The tracer of Stagecraft's spans. */
  public static Tracer tracer() {
    return openTelemetry.getTracer(SCOPE);
  }
}
