"""A route planner on networkx graphs, and the mistakes its users make with the graphs they build.

Run: python networkx_app.py USE  (one of USES; each fails as a user's program would).
"""

import sys

import networkx as nx

DISTRIBUTION = "networkx==3.6.1"
PACKAGE = "networkx"
REPO = "networkx/networkx"


def roads() -> nx.Graph:
    """Return a small road map of two islands: 0-1-2-3 and 10-11."""
    graph = nx.Graph()
    graph.add_weighted_edges_from([(0, 1, 4.0), (1, 2, 1.5), (2, 3, 2.0), (10, 11, 1.0)])
    return graph


def tasks() -> nx.DiGraph:
    """Return tasks and what each waits for, with a cycle between b, c and d."""
    return nx.DiGraph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")])


USES = {
    "no route between islands": lambda: nx.shortest_path(roads(), 0, 11),
    "unknown destination": lambda: nx.shortest_path(roads(), 0, 99),
    "unknown start": lambda: nx.shortest_path_length(roads(), 42, 1),
    "dijkstra without a path": lambda: nx.dijkstra_path(roads(), 0, 10),
    "astar without a path": lambda: nx.astar_path(roads(), 0, 10),
    "remove a missing node": lambda: roads().remove_node(7),
    "remove a missing edge": lambda: roads().remove_edge(0, 3),
    "neighbors of a missing node": lambda: list(roads().neighbors(5)),
    "successors of a missing node": lambda: list(tasks().successors("z")),
    "order of tasks with a cycle": lambda: list(nx.topological_sort(tasks())),
    "longest path with a cycle": lambda: nx.dag_longest_path(tasks()),
    "no cycle to find": lambda: nx.find_cycle(roads().subgraph([0, 1, 2])),
    "diameter of two islands": lambda: nx.diameter(roads()),
    "connected on an empty graph": lambda: nx.is_connected(nx.Graph()),
    "connected on a directed graph": lambda: nx.is_connected(tasks()),
    "strongly connected on roads": lambda: nx.is_strongly_connected(roads()),
    "euler circuit on a path": lambda: list(nx.eulerian_circuit(roads().subgraph([0, 1, 2]))),
    "bipartite sets of a triangle": lambda: nx.bipartite.sets(nx.cycle_graph(3)),
    "negative cycle": lambda: nx.bellman_ford_path(
        nx.DiGraph([(0, 1, {"weight": 1}), (1, 2, {"weight": -3}), (2, 0, {"weight": 1})]), 0, 2),
    "bellman-ford from a missing source": lambda: nx.bellman_ford_path(roads(), 77, 1),
    "complete graph of a negative size": lambda: nx.complete_graph(-3).number_of_edges() or nx.path_graph(-1),
    "random regular graph of odd degree": lambda: nx.random_regular_graph(3, 5, seed=1),
    "minimum spanning tree of a directed graph": lambda: nx.minimum_spanning_tree(tasks()),
    "unknown algorithm": lambda: nx.minimum_spanning_tree(roads(), algorithm="fastest"),
    "relabel to a missing mapping": lambda: nx.relabel_nodes(roads(), {0: 1, 1: 0}, copy=False).remove_node(99),
    "edge attribute of a missing edge": lambda: roads().edges[0, 3],
    "subgraph view frozen": lambda: roads().subgraph([0, 1]).add_edge(5, 6),
    "cycle basis of a directed graph": lambda: nx.cycle_basis(tasks()),
    "average clustering of a multigraph": lambda: nx.average_clustering(nx.MultiGraph([(0, 1), (0, 1)])),
    "eccentricity of two islands": lambda: nx.eccentricity(roads(), 0),
    "parse a bad edge list": lambda: nx.parse_edgelist(["0 1 {weight: 3}"], nodetype=int),
    "core number with a self loop": lambda: nx.core_number(nx.Graph([(0, 0), (0, 1)])),
    "contract a missing node": lambda: nx.contracted_nodes(roads(), 0, 99),
}

if __name__ == "__main__":
    USES[sys.argv[1]]()
