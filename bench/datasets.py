"""Point sets for the benchmarks, all seeded and built from shipped data or numbers.

clustered   GPS fixes in Gaussian clusters ("towns") of heavy-tailed sizes and spreads
            of 2 km and up over the contiguous US, rounded to 5 decimals (about 1 m):
            the densest towns repeat coordinates.
households  the same towns, but each location holds a household of 1 to 4 records
            at identical coordinates (55/25/12/8 %): classes grow by whole
            households, the harder case for landing classes on k.
zip_jitter  records geocoded near real ZIP centroids (the demo's 12,991 centroids),
            jittered by about 2 km and rounded to 4 decimals: duplicates in towns.
lattice     uniform points snapped to a 100 x 100 grid: every cell a heavy
            duplicate, the hard case for any rectangle partitioner.
"""
import numpy as np
import pandas as pd

from geoanon.datasets import data_path


def clustered(n: int, seed: int = 0, households: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if households:
        household = rng.choice([1, 2, 3, 4], size=n, p=[0.55, 0.25, 0.12, 0.08])
    else:
        household = np.ones(n, dtype=np.int64)
    homes = int(np.searchsorted(np.cumsum(household), n)) + 1
    centers = np.c_[rng.uniform(-124, -68, 400), rng.uniform(26, 48, 400)]
    share = rng.pareto(1.2, 400) + 1
    which = rng.choice(400, homes, p=share / share.sum())
    spread = (0.02 + rng.exponential(0.3, 400))[which][:, None]
    xy = np.round(centers[which] + rng.normal(size=(homes, 2)) * spread, 5)
    return np.repeat(xy, household[:homes], axis=0)[:n]


def households(n: int, seed: int = 0) -> np.ndarray:
    return clustered(n, seed, households=True)


def zip_jitter(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    demo = pd.read_csv(data_path("demo_patients.csv"), usecols=["lat", "lon"])
    centroids = np.unique(demo[["lon", "lat"]].to_numpy(), axis=0)
    size = rng.lognormal(0, 1.0, len(centroids))
    which = rng.choice(len(centroids), n, p=size / size.sum())
    return np.round(centroids[which] + rng.normal(scale=0.02, size=(n, 2)), 4)


def lattice(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.round(rng.random((n, 2)) * 100) / 10 + np.array([-100.0, 35.0])


DATASETS = {"clustered": clustered, "households": households, "zip_jitter": zip_jitter, "lattice": lattice}


# -- region graphs -------------------------------------------------------------------

REGION_STATES = ("RI", "DE", "NC", "IA", "TX")


def nc_county_instance():
    """NC counties (rook adjacency from the polygons) weighted by 1974 births."""
    import geoanon as ga
    from geoanon.datasets import nc_counties

    nc = nc_counties()
    return ga.graph_from_polygons(nc, "FIPS"), dict(zip(nc["FIPS"], nc["BIR74"].astype(int))), nc


def zip_counts(ids, seed: int = 0) -> dict:
    """Synthetic records per ZIP: lognormal (median about 33, heavy tail)."""
    rng = np.random.default_rng(seed)
    return dict(zip(ids, np.round(rng.lognormal(3.5, 1.2, len(ids))).astype(int).tolist()))


def zip_instance(state: str | None):
    """The ZIP Delaunay graph (shipped edge list) of one state's largest connected
    piece, or of the whole contiguous US when ``state`` is None, with synthetic
    counts and the ZIPs' centroids."""
    import networkx as nx

    import geoanon as ga

    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str})
    edges = pd.read_csv(data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    G = ga.read_edge_list(edges)
    counts = zip_counts(sorted(G.nodes))
    if state is not None:
        keep = set(nodes.loc[nodes["state"] == state, "zip"])
        piece = sorted(max(nx.connected_components(G.subgraph(keep)), key=len))
        H = nx.Graph()                       # in sorted order: set order changes from run to run
        H.add_nodes_from(piece)
        H.add_edges_from(sorted(G.subgraph(piece).edges))
        G = H
    return G, {v: counts[v] for v in G.nodes}, nodes.set_index("zip").loc[list(G.nodes)]


# -- held-out point tables (issue 51: chosen before any figure on them was seen) ------

def places_jitter(n: int, seed: int = 0) -> pd.DataFrame:
    """Records around the world's populated places (the shipped Natural Earth
    places), a place's share of records growing with the square root of its
    population, jittered by 1 km to tens of km (a spread per place) and
    rounded to 5 decimals: towns, rural spread and remote islands."""
    places = pd.read_csv(data_path("ne_places.csv.gz"))
    rng = np.random.default_rng(seed)
    share = np.sqrt(places["population"].to_numpy(dtype=float).clip(1000))
    which = rng.choice(len(places), n, p=share / share.sum())
    spread = 0.01 + rng.exponential(0.08, len(places))[which]
    lat = np.clip(places["lat"].to_numpy()[which] + rng.normal(size=n) * spread, -89.9, 89.9)
    lon = places["lon"].to_numpy()[which] + rng.normal(size=n) * spread / np.cos(np.radians(lat))
    return pd.DataFrame({"lat": np.round(lat, 5), "lon": np.round((lon + 180) % 360 - 180, 5)})


def airports_jitter(n: int, seed: int = 0) -> pd.DataFrame:
    """Records near the shipped US airports, lognormal shares (many airports
    hold a handful), jittered by 0.5 km to tens of km, to 5 decimals."""
    airports = pd.read_csv(data_path("us_airports.csv.gz"))
    rng = np.random.default_rng(seed)
    share = rng.lognormal(0, 1.5, len(airports))
    which = rng.choice(len(airports), n, p=share / share.sum())
    spread = (0.005 + rng.exponential(0.05, len(airports)))[which]
    return pd.DataFrame({"lat": np.round(airports["lat"].to_numpy()[which] + rng.normal(size=n) * spread, 5),
                         "lon": np.round(airports["lon"].to_numpy()[which] + rng.normal(size=n) * spread, 5)})
