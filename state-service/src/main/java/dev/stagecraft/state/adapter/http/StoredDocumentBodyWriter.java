package dev.stagecraft.state.adapter.http;

import dev.stagecraft.state.adapter.db.StateStore;
import io.micronaut.core.io.buffer.ReadBuffer;
import io.micronaut.core.io.buffer.ReadBufferFactory;
import io.micronaut.core.type.Argument;
import io.micronaut.core.type.MutableHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.body.ByteBodyFactory;
import io.micronaut.http.body.CloseableByteBody;
import io.micronaut.http.body.ResponseBodyWriter;
import io.micronaut.http.codec.CodecException;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Writes a {@link StoredDocumentBody} as the response's byte body, of known length, made of the
 * slices {@link StateStore#openDocumentSlices} reads or the body holds already (of a document the
 * service compressed, 256 KiB decompressed at a time, ADR 0041; else up to 16 MiB whole, ADR 0036,
 * or 4 MiB slices), each wrapped (not copied) and written to the connection as it is (ADR 0026). An
 * {@code InputStream} body is copied again, 8 KiB at a time, through the server's I/O executor —
 * over a hundred hand-offs between threads per MiB — and a publisher as the body of a JSON response
 * is written as a JSON array.
 *
 * <p>Slices from the database are read on Reactor's bounded-elastic threads (JDBC blocks; the event
 * loop must not), on a database connection of their own that completing, failing or cancelling (the
 * client went away) returns; held slices are decompressed on the event loop; both as the connection
 * asks for them. In memory: the slices not yet written, and a held document's compressed bytes.
 */
@Singleton
@Produces(MediaType.APPLICATION_JSON)
final class StoredDocumentBodyWriter implements ResponseBodyWriter<StoredDocumentBody> {

  @Override
  public CloseableByteBody writePiece(
      ByteBodyFactory bodyFactory,
      HttpRequest<?> request,
      HttpResponse<?> response,
      Argument<StoredDocumentBody> type,
      MediaType mediaType,
      StoredDocumentBody body) {
    ReadBufferFactory buffers = bodyFactory.readBufferFactory();
    Flux<ReadBuffer> slices =
        Flux.using(
            () ->
                body.held() != null
                    ? body.held()
                    : body.states()
                        .openDocumentSlices(body.tenant(), body.workspace(), body.document()),
            document ->
                Flux.<ReadBuffer>generate(
                    sink -> {
                      try {
                        byte[] slice = document.nextSlice();
                        if (slice == null) {
                          sink.complete();
                        } else {
                          sink.next(buffers.adapt(slice));
                        }
                      } catch (IOException e) {
                        sink.error(e);
                      }
                    }),
            document -> {
              try {
                document.close();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    if (body.held() == null) {
      slices = slices.subscribeOn(Schedulers.boundedElastic()); // JDBC blocks
    }
    return bodyFactory.adapt(slices, OptionalLong.of(body.document().size()));
  }

  /** The whole document into {@code out}: for writers that buffer a body (not the server's). */
  @Override
  public void writeTo(
      Argument<StoredDocumentBody> type,
      MediaType mediaType,
      StoredDocumentBody body,
      MutableHeaders headers,
      OutputStream out)
      throws CodecException {
    try {
      if (body.held() != null) {
        try (StateStore.DocumentSlices held = body.held()) {
          for (byte[] slice = held.nextSlice(); slice != null; slice = held.nextSlice()) {
            out.write(slice);
          }
        }
        return;
      }
      try (InputStream in =
          body.states().openDocument(body.tenant(), body.workspace(), body.document())) {
        in.transferTo(out);
      }
    } catch (IOException | SQLException e) {
      throw new CodecException("cannot read stored state document " + body.document().digest(), e);
    }
  }
}
