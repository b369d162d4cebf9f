package dev.stagecraft.systemtest;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local OTLP/HTTP trace receiver for tests: {@code POST /v1/traces} with a protobuf {@code
 * ExportTraceServiceRequest}, decoded with {@code opentelemetry-proto}, each span kept with the
 * {@code service.name} of its resource. Thread-safe (the server's threads append; tests read).
 */
final class OtlpReceiver implements AutoCloseable {
  /**
   * A received span, ids in lower-case hex; {@code parentSpanId} empty for a root; {@code links}
   * the span ids it links to.
   */
  record ReceivedSpan(
      String service,
      String traceId,
      String spanId,
      String parentSpanId,
      String name,
      List<String> links) {}

  private final HttpServer server;
  private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

  OtlpReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            receive(ExportTraceServiceRequest.parseFrom(in.readAllBytes()));
            byte[] ok = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, ok.length == 0 ? -1 : ok.length);
            if (ok.length > 0) {
              try (OutputStream out = exchange.getResponseBody()) {
                out.write(ok);
              }
            }
          } catch (IOException | RuntimeException e) {
            exchange.sendResponseHeaders(400, -1);
          } finally {
            exchange.close();
          }
        });
    server.start();
  }

  /** The base URL to give as {@code OTEL_EXPORTER_OTLP_ENDPOINT}. */
  String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<ReceivedSpan> spans() {
    return List.copyOf(spans);
  }

  private void receive(ExportTraceServiceRequest request) {
    HexFormat hex = HexFormat.of();
    for (ResourceSpans rs : request.getResourceSpansList()) {
      String service =
          rs.getResource().getAttributesList().stream()
              .filter(a -> a.getKey().equals("service.name"))
              .map(KeyValue::getValue)
              .map(v -> v.getStringValue())
              .findFirst()
              .orElse("");
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        ss.getSpansList()
            .forEach(
                s ->
                    spans.add(
                        new ReceivedSpan(
                            service,
                            hex.formatHex(s.getTraceId().toByteArray()),
                            hex.formatHex(s.getSpanId().toByteArray()),
                            hex.formatHex(s.getParentSpanId().toByteArray()),
                            s.getName(),
                            s.getLinksList().stream()
                                .map(l -> hex.formatHex(l.getSpanId().toByteArray()))
                                .toList())));
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
