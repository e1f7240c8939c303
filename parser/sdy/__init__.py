"""The Shardy (``sdy``) dialect, a plug-in of the core (parser/dialects.py): its
attributes (``attributes``), its ops' custom forms (``forms``), its bytecode encodings
(``bytecode_codec``) and its registration (``dialect``).  Sources: openxla/shardy
``shardy/dialect/sdy/ir/``."""
