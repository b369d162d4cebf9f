package dev.stagecraft.planner.service.adapter;

import io.micronaut.context.annotation.ConfigurationProperties;

/** {@code stagecraft.*} settings of the planner (environment variables in docs/internal-api.md). */
@ConfigurationProperties("stagecraft")
public final class PlannerSettings {
  private String kafka;
  private String serviceToken;
  private String stateUrl;
  private String lockUrl;
  private String publicStateUrl;
  private String publicLockUrl;
  private String instanceId;

  public String getKafka() {
    return kafka;
  }

  public void setKafka(String kafka) {
    this.kafka = kafka;
  }

  public String getServiceToken() {
    return serviceToken;
  }

  public void setServiceToken(String serviceToken) {
    this.serviceToken = serviceToken;
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
}
