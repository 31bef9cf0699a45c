

def test_fewer_or_more_tile_sizes_than_members_are_said():
    """helper-46 F16: `--tile-sizes 8` tiled gemm's bands [8, 256] and [8, 128, 128]
    (the rest from the model), `8,8,8,8,8` dropped sizes, both without a word."""
    from polysched.bench import get
    from polysched.pipeline import OptimizeOptions, optimize
    for sizes, notes in (([8], ["1 of 2 tile sizes given: the rest from the footprint model",
                                "1 of 3 tile sizes given: the rest from the footprint model"]),
                         ([8] * 5, [None, "5 tile sizes given, 3 members in the deepest band: the last 2 unused"]),
                         ([8, 8, 8], [None, None])):
        result = optimize(get("gemm").path, OptimizeOptions.from_flags(tile=True, tile_sizes=sizes, tensorize=False))
        bands = result.regions[0].tiling.bands
        assert [band.sizes[0] for band in bands] == [8, 8]
        for band, note in zip(bands, notes):
            said = [n for n in band.notes if "tile sizes given" in n]
            assert said == ([note] if note else [])
