"""The window's collaborators: each takes one kind of action off the window's hands.

``MainWindow`` builds the widgets and the actions and wires them; what an action *does* lives
here (the way vorta's views hand each action to a collaborator):

- ``scan``: start and cancel scans through the worker, and re-read a file in another encoding;
- ``file_actions``: trash, move, open and reveal files through ``neardup_core.actions``, with the
  confirmation dialog;
- ``results_io``: save and open results, export reports.

Each is a QObject owned by the window. They reach the window through its public seams (its
widgets, ``result``, ``set_result``, ``start_busy``/``end_busy``, the prompts); they do not
import it, so the imports run one way (window -> controllers -> widgets, dialogs).
"""
