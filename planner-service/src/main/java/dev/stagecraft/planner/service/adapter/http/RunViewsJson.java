package dev.stagecraft.planner.service.adapter.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.stagecraft.planner.service.run.view.PlanView;
import dev.stagecraft.planner.service.run.view.RunView;
import jakarta.inject.Singleton;
import java.time.Instant;

/**
 * How the run views ({@code dev.stagecraft.planner.service.run.view}), plain records, are written
 * as JSON: a Jackson module the framework's object mapper registers (Micronaut adds every {@code
 * Module} bean), so the views carry no framework annotation of their own.
 */
@Singleton
public final class RunViewsJson extends SimpleModule {

  public RunViewsJson() {
    super("stagecraft-run-views");
    setMixInAnnotation(RunView.class, RunViewMixin.class);
    setMixInAnnotation(PlanView.class, PlanViewMixin.class);
  }

  /**
   * A run's live and recorded fields inline, present only when known; {@code awaitingApproval} and
   * {@code approvalExpiresAt} left out when not known (a client tells "absent" from "false").
   */
  abstract static class RunViewMixin {
    @JsonUnwrapped
    abstract RunView.Live live();

    @JsonUnwrapped
    abstract RunView.Recorded recorded();

    @JsonInclude(JsonInclude.Include.NON_NULL)
    abstract Boolean awaitingApproval();

    @JsonInclude(JsonInclude.Include.NON_NULL)
    abstract Instant approvalExpiresAt();
  }

  /** The plan answer's names are snake_case ({@code prior_serial}, {@code has_changes}). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  abstract static class PlanViewMixin {}
}
