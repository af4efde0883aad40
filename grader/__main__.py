from grader.cli import leave, main

leave(main())
