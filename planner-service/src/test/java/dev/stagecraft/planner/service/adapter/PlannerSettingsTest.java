package dev.stagecraft.planner.service.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The planner's advertised address (docs/adr/0050) is an http(s) URL with a host, or unset. */
class PlannerSettingsTest {
  @Test
  void anAdvertisedUrlIsKeptWithoutItsTrailingSlashAndBlankMeansNone() {
    PlannerSettings settings = new PlannerSettings();
    assertThat(settings.getPlannerAdvertisedUrl()).isNull();
    settings.setPlannerAdvertisedUrl("  ");
    assertThat(settings.getPlannerAdvertisedUrl()).isNull();
    settings.setPlannerAdvertisedUrl(" https://planner-2.internal:8443/ ");
    assertThat(settings.getPlannerAdvertisedUrl()).isEqualTo("https://planner-2.internal:8443");
    settings.setPlannerAdvertisedUrl("http://10.0.0.7:8080/stagecraft");
    assertThat(settings.getPlannerAdvertisedUrl()).isEqualTo("http://10.0.0.7:8080/stagecraft");
  }

  @Test
  void anAdvertisedUrlThatIsNotAnHttpUrlWithAHostIsRefusedSayingWhatToSet() {
    for (String bad :
        new String[] {
          "planner-2:8080", "ftp://planner-2", "http://", "http://planner 2", "http://p:80/?a=1"
        }) {
      PlannerSettings settings = new PlannerSettings();
      settings.setPlannerAdvertisedUrl(bad);
      assertThatThrownBy(settings::getPlannerAdvertisedUrl)
          .as(bad)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("STAGECRAFT_PLANNER_ADVERTISED_URL '" + bad + "'")
          .hasMessageContaining("e.g. http://planner-2.internal:8080");
    }
  }
}
