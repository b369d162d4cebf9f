package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore.SealedContentException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

/**
 * A configuration version sealed at rest that this planner cannot open (its key id is not in the
 * keyring, docs/adr/0024) is a 409 problem naming the version and the key id, not a 500: the
 * operator restores the key, or the client uploads the files again. The message holds no content.
 */
@Singleton
@Produces
public class SealedContentHandler
    implements ExceptionHandler<SealedContentException, HttpResponse<String>> {

  @Override
  @SuppressWarnings("rawtypes") // ExceptionHandler declares the raw type; an override must match
  public HttpResponse<String> handle(HttpRequest request, SealedContentException e) {
    return ApiProblems.problem(
        HttpStatus.CONFLICT, "Configuration version cannot be opened", e.getMessage());
  }
}
