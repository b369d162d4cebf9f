package dev.stagecraft.planner.service.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GitAddressesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "::1",
        "0.0.0.0",
        "169.254.169.254",
        "fe80::1",
        "10.1.2.3",
        "172.16.0.9",
        "192.168.1.1",
        "100.64.0.1",
        "fd00::5",
        "::ffff:127.0.0.1",
        "224.0.0.1"
      })
  void nonPublicAddressesAreRefusedByDefault(String ip) throws Exception {
    assertThat(GitAddresses.PUBLIC_ONLY.refusal("h", List.of(InetAddress.getByName(ip))))
        .hasValueSatisfying(r -> assertThat(r).contains("repository host 'h' resolves to"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"93.184.216.34", "2606:2800:220:1::1", "172.32.0.1", "100.128.0.1"})
  void publicAddressesAreAllowed(String ip) throws Exception {
    assertThat(GitAddresses.PUBLIC_ONLY.refusal("h", List.of(InetAddress.getByName(ip)))).isEmpty();
  }

  @Test
  void anAllowedNetworkAllowsItsAddressesOnly() throws Exception {
    GitAddresses addresses = GitAddresses.parse(" 10.20.0.0/16, fd00::/8 ,192.168.5.5");
    assertThat(addresses.refusal("git", List.of(InetAddress.getByName("10.20.255.1")))).isEmpty();
    assertThat(addresses.refusal("git", List.of(InetAddress.getByName("10.21.0.1")))).isPresent();
    assertThat(addresses.refusal("git", List.of(InetAddress.getByName("fd12::1")))).isEmpty();
    assertThat(addresses.refusal("git", List.of(InetAddress.getByName("192.168.5.5")))).isEmpty();
    assertThat(addresses.refusal("git", List.of(InetAddress.getByName("192.168.5.6")))).isPresent();
    // every address of the host must be allowed
    assertThat(
            addresses.refusal(
                "git",
                List.of(InetAddress.getByName("10.20.0.1"), InetAddress.getByName("127.0.0.1"))))
        .hasValueSatisfying(r -> assertThat(r).contains("127.0.0.1, a loopback address"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.0.0.0/33", "git.example/24", "10.0.0.0/x", "", "fd00::/129"})
  void aBadNetworkIsAnErrorNamingTheSettingAndTheEntry(String entry) {
    assertThatThrownBy(() -> GitAddresses.parse("10.0.0.0/8," + entry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("STAGECRAFT_PLANNER_GIT_ALLOWED_NETWORKS holds '" + entry + "'");
  }

  @Test
  void blankMeansPublicOnly() {
    assertThat(GitAddresses.parse("  ")).isEqualTo(GitAddresses.PUBLIC_ONLY);
    assertThat(GitAddresses.parse(null).allowed()).isEmpty();
  }
}
