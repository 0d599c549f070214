(* The lowest free line, on the stdio bridge: protocol lines on stdin and stdout. *)
let drawn = Hashtbl.create 64

let predrawn message =
  let key = "\"predrawn\":[" in
  let start = ref 0 in
  (try
     while String.sub message !start (String.length key) <> key do incr start done;
     start := !start + String.length key
   with Invalid_argument _ -> start := String.length message);
  let stop = try String.index_from message !start ']' with Not_found -> !start in
  String.split_on_char ',' (String.sub message !start (stop - !start))
  |> List.iter (fun word -> match int_of_string_opt (String.trim word) with
                            | Some line -> Hashtbl.replace drawn line () | None -> ())

let () =
  Printf.printf "HELLO v1 %s runtime-ocaml\n%!" (try Sys.getenv "HEXARENA_TOKEN" with Not_found -> "");
  try
    while true do
      let message = input_line stdin in
      match String.split_on_char ' ' message with
      | "GAME" :: _ -> Hashtbl.reset drawn; predrawn message
      | "DRAWN" :: _ :: line :: _ -> Hashtbl.replace drawn (int_of_string line) ()
      | "TURN" :: id :: _ ->
          let line = ref 0 in
          while Hashtbl.mem drawn !line do incr line done;
          Printf.printf "MOVE %s %d\n%!" id !line
      | "BYE" :: _ -> exit 0
      | _ -> ()
    done
  with End_of_file -> ()
