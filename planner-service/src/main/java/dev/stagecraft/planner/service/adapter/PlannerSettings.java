package dev.stagecraft.planner.service.adapter;

import io.micronaut.context.annotation.ConfigurationProperties;
import java.net.URI;
import java.net.URISyntaxException;

/** {@code stagecraft.*} settings of the planner (environment variables in docs/internal-api.md). */
@ConfigurationProperties("stagecraft")
public final class PlannerSettings {
  private String kafka;
  private String kafkaUsername;
  private String kafkaPassword;
  private String kafkaSecurityProtocol;
  private String stateUrl;
  private String lockUrl;
  private String publicStateUrl;
  private String publicLockUrl;
  private String instanceId;
  private String plannerAdvertisedUrl;

  public String getKafka() {
    return kafka;
  }

  public void setKafka(String kafka) {
    this.kafka = kafka;
  }

  /** The planner's Kafka principal ({@code STAGECRAFT_KAFKA_USERNAME}); empty: none. */
  public String getKafkaUsername() {
    return kafkaUsername;
  }

  public void setKafkaUsername(String kafkaUsername) {
    this.kafkaUsername = kafkaUsername;
  }

  public String getKafkaPassword() {
    return kafkaPassword;
  }

  public void setKafkaPassword(String kafkaPassword) {
    this.kafkaPassword = kafkaPassword;
  }

  public String getKafkaSecurityProtocol() {
    return kafkaSecurityProtocol;
  }

  public void setKafkaSecurityProtocol(String kafkaSecurityProtocol) {
    this.kafkaSecurityProtocol = kafkaSecurityProtocol;
  }

  public String getStateUrl() {
    return stateUrl;
  }

  public void setStateUrl(String stateUrl) {
    this.stateUrl = stateUrl;
  }

  public String getLockUrl() {
    return lockUrl;
  }

  public void setLockUrl(String lockUrl) {
    this.lockUrl = lockUrl;
  }

  public String getPublicStateUrl() {
    return publicStateUrl == null || publicStateUrl.isBlank() ? stateUrl : publicStateUrl;
  }

  public void setPublicStateUrl(String publicStateUrl) {
    this.publicStateUrl = publicStateUrl;
  }

  public String getPublicLockUrl() {
    return publicLockUrl == null || publicLockUrl.isBlank() ? lockUrl : publicLockUrl;
  }

  public void setPublicLockUrl(String publicLockUrl) {
    this.publicLockUrl = publicLockUrl;
  }

  public String getInstanceId() {
    return instanceId;
  }

  public void setInstanceId(String instanceId) {
    this.instanceId = instanceId;
  }

  /**
   * Where this instance answers the public API for the other planner instances (docs/adr/0050),
   * e.g. {@code http://planner-2.internal:8080}; null when not set (blank counts as not set).
   */
  public String getPlannerAdvertisedUrl() {
    if (plannerAdvertisedUrl == null || plannerAdvertisedUrl.isBlank()) {
      return null;
    }
    String url = plannerAdvertisedUrl.strip().replaceAll("/+$", "");
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      uri = null;
    }
    if (uri == null
        || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
        || uri.getHost() == null
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      throw new IllegalStateException(
          "STAGECRAFT_PLANNER_ADVERTISED_URL '"
              + plannerAdvertisedUrl
              + "' is not an http(s) URL with a host (and no query or fragment). Set it to where"
              + " the other planner instances reach this one, e.g. http://planner-2.internal:8080,"
              + " or leave it empty.");
    }
    return url;
  }

  public void setPlannerAdvertisedUrl(String plannerAdvertisedUrl) {
    this.plannerAdvertisedUrl = plannerAdvertisedUrl;
  }
}
