package dev.stagecraft.cli.state;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code state list} names every instance at its full address, module path and key included. */
class StateInstancesTest {
  @Test
  void instancesInModulesAreListedWithTheirModulePathAndQuotedKeys() throws Exception {
    var state =
        new ObjectMapper()
            .readTree(
                """
                {"version":4,"resources":[
                  {"mode":"managed","type":"null_resource","name":"a","instances":[{"attributes":{}}]},
                  {"module":"module.app[\\\"eu\\\"]","mode":"managed","type":"null_resource","name":"node",
                   "instances":[{"index_key":0,"attributes":{}},{"index_key":"q\\\"x","attributes":{}}]},
                  {"module":"module.db","mode":"managed","type":"terraform_data","name":"s",
                   "instances":[{"attributes":{}}]}]}
                """);

    assertThat(StateCommand.instances(state).keySet())
        .containsExactly(
            "null_resource.a",
            "module.app[\"eu\"].null_resource.node[0]",
            "module.app[\"eu\"].null_resource.node[\"q\\\"x\"]",
            "module.db.terraform_data.s");
  }
}
