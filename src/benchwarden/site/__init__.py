"""``benchwarden site build``: a static, offline site from the store (docs/site.md).

:mod:`.collect` reads the store once (runs, history series analysed by :mod:`benchwarden.history`, comparison
sessions re-analysed by :mod:`benchwarden.compare.stored`); :mod:`.pages` computes each page's tables and plotly
figure specifications (pure); :mod:`.build` renders them through jinja2 and writes the folder.
"""
