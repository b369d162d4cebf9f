package dev.stagecraft.planner.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DependencyGraphTest {
  @Test
  void ordersEveryNodeAfterItsDependencies() {
    DependencyGraph g = new DependencyGraph().addEdge("c", "b").addEdge("b", "a").addNode("d");
    List<String> order = g.topologicalOrder();
    assertThat(order.indexOf("a")).isLessThan(order.indexOf("b"));
    assertThat(order.indexOf("b")).isLessThan(order.indexOf("c"));
    assertThat(order).contains("d");
  }

  @Test
  void findsACycleAndNamesItsNodesInOrder() {
    DependencyGraph g =
        new DependencyGraph().addEdge("a", "b").addEdge("b", "c").addEdge("c", "a").addNode("z");
    assertThat(g.findCycle()).contains(List.of("a", "b", "c", "a"));
  }

  @Test
  void findsNoCycleInADiamond() {
    DependencyGraph g =
        new DependencyGraph()
            .addEdge("d", "b")
            .addEdge("d", "c")
            .addEdge("b", "a")
            .addEdge("c", "a");
    assertThat(g.findCycle()).isEmpty();
    assertThat(g.transitiveDependenciesOf("d")).containsExactlyInAnyOrder("a", "b", "c");
  }
}
