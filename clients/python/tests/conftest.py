# The plugin's fixtures come from its entry point (the package is installed); pytester runs the
# plugin-level test in a fresh folder.
pytest_plugins = ["pytester"]
