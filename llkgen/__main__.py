from llkgen.entry import main

main()
